import typia from 'typia';
import type { Ctx } from '../../context';
import { describe, jsonBody } from '../../http/body';
import { forbidden, invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { channelsOf, NOTIFICATION_TYPES, RETENTION_DEFAULTS } from '../../domain/retention';
import { ownStreakRule, OwnStreakRule } from '../../domain/streaks';
import type { TenantConfig } from '../../store/tenant-config';
import type { StreakPreferences, UpdateUserPreferencesRequest, UserPreferencesResponse } from '../../wire/app';
import { readUser, writeUserFields } from '../../services/user-calls';
import { prefField, STREAK_PREF_FIELD } from '../../domain/user-hash';

const validateUpdate = typia.createValidate<UpdateUserPreferencesRequest>();

/** Notification and streak preferences (Trophy's preferences endpoints). */
export function preferenceRoutes(ctx: Ctx): Route[] {
  return [
    { method: 'get', pattern: '/v1/users/:id/preferences', handler: (req) => getPreferences(ctx, req) },
    { method: 'patch', pattern: '/v1/users/:id/preferences', body: true, handler: (req) => updatePreferences(ctx, req) },
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

async function getPreferences(ctx: Ctx, req: Request) {
  const u = await readUser(ctx, req);
  return reply(200, preferencesJson(u.cfg, u.fields));
}

async function updatePreferences(ctx: Ctx, req: Request) {
  const u = await readUser(ctx, req);
  // Trophy answers 422 for a body it cannot take.
  const v = validateUpdate(jsonBody(req));
  if (!v.success) throw invalid(describe(v.errors, 'body'));
  const body = v.data;
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
  return reply(200, preferencesJson(u.cfg, fields));
}
