import typia from 'typia';
import type { Ctx } from '../../context';
import { forbidden, invalid } from '../../errors';
import { Input, io, ok, route } from '../define';
import { channelsOf, NOTIFICATION_TYPES, RETENTION_DEFAULTS } from '../../domain/retention';
import { ownStreakRule, OwnStreakRule } from '../../domain/streaks';
import type { TenantConfig } from '../../store/tenant-config';
import type { StreakPreferences, UpdateUserPreferencesRequest, UserPreferencesResponse } from '../../wire/app';
import { readUser, writeUserFields } from '../../services/user-calls';
import { prefField, STREAK_PREF_FIELD } from '../../domain/user-hash';

/** Notification and streak preferences (Trophy's preferences endpoints). */
export function preferenceRoutes(ctx: Ctx) {
  const preferences = typia.json.schema<UserPreferencesResponse>();
  return [
    route({
      method: 'get', path: '/v1/users/:id/preferences', operationId: 'users_get_preferences', tag: 'Users', auth: 'application',
      summary: "A user's notification (and own streak) preferences",
      description: 'Every notification type is present: the user\'s own channels, else the tenant\'s default (Admin API: /admin/v1/retention).',
      responses: { 200: { description: 'The preferences', schema: preferences } },
      handler: (x) => getPreferences(ctx, x),
    }),
    route({
      method: 'patch', path: '/v1/users/:id/preferences', operationId: 'users_update_preferences', tag: 'Users', auth: 'application',
      summary: "Update a user's notification and streak preferences",
      description: 'Types omitted keep their channels; [] opts out. `streak` needs streak customization (403 otherwise). An invalid body is 422.',
      body: io(typia.createValidate<UpdateUserPreferencesRequest>(), typia.json.schema<UpdateUserPreferencesRequest>()),
      responses: { 200: { description: 'The preferences after the update', schema: preferences } },
      handler: (x) => updatePreferences(ctx, x),
    }),
  ];
}

function preferencesJson(cfg: TenantConfig, fields: Map<string, string>): UserPreferencesResponse {
  const retention = cfg.retention ?? RETENTION_DEFAULTS;
  const notifications = Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, channelsOf(retention, fields, t)])) as UserPreferencesResponse['notifications'];
  const out: UserPreferencesResponse = { notifications };
  const own = fields.get(STREAK_PREF_FIELD);
  if (own) out.streak = streakPreferencesJson(cfg, JSON.parse(own) as OwnStreakRule);
  return out;
}

function streakPreferencesJson(cfg: TenantConfig, rule: OwnStreakRule): StreakPreferences {
  const keyOf = new Map([...cfg.metricsByKey.values()].map((m) => [String(m.slot), m.key]));
  return {
    enabled: rule.on === 1,
    evaluationMode: rule.mode === 'all' ? 'AND' : 'OR',
    // A metric deleted since no longer counts.
    metrics: Object.entries(rule.th).flatMap(([slot, threshold]) => (keyOf.has(slot) ? [{ key: keyOf.get(slot)!, threshold }] : [])),
  };
}

async function getPreferences(ctx: Ctx, x: Input<'/v1/users/:id/preferences', undefined, undefined>) {
  const u = await readUser(ctx, x, x.params.id);
  return ok(preferencesJson(u.cfg, u.fields));
}

async function updatePreferences(ctx: Ctx, x: Input<'/v1/users/:id/preferences', undefined, UpdateUserPreferencesRequest>) {
  const u = await readUser(ctx, x, x.params.id);
  const body = x.body;
  const patch: Record<string, string> = {};
  for (const t of NOTIFICATION_TYPES) {
    const channels = body.notifications?.[t];
    if (channels) patch[prefField(t)] = [...new Set(channels)].join(',');
  }
  if (body.streak) {
    if (!u.cfg.retention?.streakCustomization) throw forbidden('Streak customization is not enabled for this tenant');
    if (!u.cfg.streak?.enabled) throw invalid('Streaks are not enabled for this tenant');
    const current = u.fields.get(STREAK_PREF_FIELD);
    const rule = ownStreakRule(u.cfg.streak, current ? (JSON.parse(current) as OwnStreakRule) : null, body.streak, (key) => u.cfg.metricsByKey.get(key)?.slot);
    if (typeof rule === 'string') throw invalid(rule);
    patch[STREAK_PREF_FIELD] = JSON.stringify(rule);
  }
  const fields = Object.keys(patch).length ? await writeUserFields(ctx, u.tenant, u.id, patch) : u.fields;
  return ok(preferencesJson(u.cfg, fields));
}
