import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';
import type { MessageType } from '../wire/admin';
import type { UnsubscribeLinks } from './unsubscribe';
import { achievementJson } from '../domain/achievements';
import type { Achievement } from '../wire/app';
import { dateFromDay, dayNumber, localDate, zonedMs } from '../domain/time';
import { FREQ_CODE, parseState, periodIndexes, streakJson } from '../domain/streaks';
import { RETENTION_DEFAULTS, recapOf } from '../domain/retention';
import { attributesIn, achievedField, EMAIL_FIELD, FREEZES_FIELD, NAME_FIELD, pointsField, streakField, ZONE_FIELD, zoneIn } from '../domain/user-hash';

/** The due webhook's body a message was queued with (what is read from it). */
export interface DuePayload {
  achievement?: Achievement;
  streak?: Record<string, unknown>;
  recap?: { periodStart: string; periodEnd: string };
  reactivation?: { messageNumber: number; daysSinceLastActive: number };
}

/**
 * A template's variables for one user (docs/messages.md lists them). A
 * queued message reads the notice from its due payload; a preview, which
 * has none, takes what the next notice of the type would carry.
 */
export async function messageVariables(
  ctx: Ctx, links: UnsubscribeLinks, tenant: Tenant, cfg: TenantConfig, userId: string, fields: Map<string, string>, type: MessageType,
  due: DuePayload | null,
): Promise<Record<string, unknown>> {
  const now = ctx.clock.now();
  const zone = zoneIn(fields, cfg.defaultZone);
  const retention = cfg.retention ?? RETENTION_DEFAULTS;
  const metricName = (id: string) => cfg.metricsById.get(id)?.name;

  let achievement: object | null = due?.achievement ?? null;
  if (!due && type === 'achievement_completed') {
    // The user's latest completion, else the tenant's first achievement (a preview of a user who has none yet).
    const all = [...cfg.achievementsById.values()];
    const done = all.filter((a) => fields.has(achievedField(a.slot))).sort((a, b) => Number(fields.get(achievedField(b.slot))) - Number(fields.get(achievedField(a.slot))));
    const a = done[0] ?? all[0];
    achievement = a ? achievementJson(a, metricName, done[0] ? Number(fields.get(achievedField(a.slot))) : null) : null;
  }

  let streak: object | null = due?.streak ?? null;
  const sk = cfg.streak;
  if (!streak && sk?.enabled) {
    const f = FREQ_CODE[sk.frequency];
    streak = streakJson(sk, parseState(fields.get(streakField(f))), periodIndexes(localDate(now, zone), sk.weekStart)[f], Number(fields.get(FREEZES_FIELD) ?? 0));
  }

  let recap: Record<string, unknown> | null = null;
  if (type === 'recap') {
    let period = due?.recap;
    if (!period) {
      const current = recapOf(retention, localDate(now, zone), zone);
      const previous = recapOf(retention, dateFromDay(dayNumber(current.start)! - 1), zone);
      period = { periodStart: previous.start, periodEnd: previous.end };
    }
    recap = { ...period, ...(await recapFigures(ctx, tenant.id, userId, period.periodStart, period.periodEnd, zone)) };
  }

  const reactivation = type === 'reactivation'
    ? (due?.reactivation ?? { messageNumber: 1, daysSinceLastActive: retention.reactivationEmails.days[0]! })
    : null;

  const points = Object.fromEntries(
    [...cfg.systemsByKey.values()].map((s) => [s.key, { name: s.name, total: Number(fields.get(pointsField(s.slot)) ?? 0) }]),
  );
  const url = await links.url({ tenantId: tenant.id, userId, type });
  return {
    type,
    user: {
      id: userId, name: fields.get(NAME_FIELD) ?? null, email: fields.get(EMAIL_FIELD) ?? null, tz: fields.get(ZONE_FIELD) || null,
      attributes: attributesIn(fields),
    },
    achievement, streak, points, recap, reactivation,
    unsubscribeUrl: url,
    preferencesUrl: url,
  };
}

/** What the user did in a recap period (local dates, inclusive). */
async function recapFigures(ctx: Ctx, tenantId: string, userId: string, start: string, end: string, zone: string) {
  const from = new Date(zonedMs(start, 0, zone));
  const to = new Date(zonedMs(dateFromDay(dayNumber(end)! + 1), 0, zone));
  const { rows } = await ctx.db.query<{ events: string; points: string; achievements: string }>(
    `SELECT
       (SELECT count(*) FROM events WHERE tenant_id = $1 AND user_id = $2 AND local_date BETWEEN $3 AND $4) AS events,
       (SELECT coalesce(sum(awarded), 0) FROM awards WHERE tenant_id = $1 AND user_id = $2 AND local_date BETWEEN $3 AND $4) AS points,
       (SELECT count(*) FROM achievement_completions WHERE tenant_id = $1 AND user_id = $2 AND achieved_at >= $5 AND achieved_at < $6) AS achievements`,
    [tenantId, userId, start, end, from, to],
  );
  const r = rows[0]!;
  return { events: Number(r.events), points: Number(r.points), achievements: Number(r.achievements) };
}
