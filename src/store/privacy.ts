import { createHash } from 'node:crypto';
import { MESSAGE_COLS, messageJson, MessageRow } from './messages';
import type { Ctx } from '../context';
import type { Tenant } from './tenants';
import { tx } from './db';
import { streamVersion } from './user-state';
import { TenantConfigs } from './tenant-config';
import { scanKeys } from '../redis/client';
import { idempotencySlot } from '../domain/idempotency';
import { notFound } from '../errors';
import { userJson } from '../domain/users';
import { levelFor, levelJson } from '../domain/points';
import { awardOrder, storedAwardId } from './points-awards';
import { FREQ_CODE, parseState, periodDates } from '../domain/streaks';
import { scoreValue, splitGroup } from '../domain/leaderboards';
import { leagueLeaveCall, userEraseCall, zoneKey } from '../engine';
import { leagueField, parsePlace, runDates } from '../domain/leagues';
import type { ErasedUser, UserExport } from '../wire/admin';
import { achievedField, isUser, pointsField, FREEZES_FIELD, streakField, LAST_CHANGE_FIELD, totalField } from '../domain/user-hash';
import { RECORD_FIELD, RECORD_KIND } from '../domain/change-record';
import { recordFields } from '../engine/change-record';

/**
 * The tombstone's name for an erased user: a SHA-256 of tenant and user id,
 * so no table keeps the id itself. The flusher computes it too, to drop
 * records of a user written before their erasure.
 */
export function erasureHash(tenantId: string, userId: string): string {
  return createHash('sha256').update(`${tenantId}\0${userId}`).digest('hex');
}

/** Tables whose rows belong to one user (`user_id`), emptied by an erasure. */
const USER_TABLES = [
  'events', 'points_awards', 'achievement_completions', 'streak_pauses', 'streak_periods',
  'leaderboard_events', 'leaderboard_results', 'board_entries', 'user_state', 'batch_rejections', 'rollup_user_days', 'rollup_users', 'messages', 'event_days', 'points_days',
  'league_entries', 'league_results', 'league_tiers',
] as const;

/**
 * Webhook deliveries naming the user: as the subject (`user.id`), or in a
 * leaderboard's rankings. The first are deleted; from the second, the user's
 * ranking is taken out and the rest is kept.
 */
const ABOUT_USER = `(payload::jsonb -> 'user' ->> 'id') = $2`;
const RANKS_USER = `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(payload::jsonb -> 'leaderboard' -> 'rankings') = 'array'
  THEN payload::jsonb -> 'leaderboard' -> 'rankings' ELSE '[]'::jsonb END) AS r WHERE r ->> 'userId' = $2)`;

/** Take the user out of every league's cohort and settled tiers in Redis. */
async function leaveLeagues(ctx: Ctx, tenant: Tenant, userId: string): Promise<void> {
  const cfg = await ctx.configs.get(tenant);
  const leagues = [...cfg.leaguesBySlot.values()];
  if (!leagues.length) return;
  const tk = ctx.keys.tenant(tenant.slot);
  const places = await ctx.redis.hmget(tk.user(userId), ...leagues.map((l) => leagueField(l.slot)));
  for (const [i, l] of leagues.entries()) await leagueLeaveCall(ctx.engine, tk, { slot: l.slot, userId, place: parsePlace(places[i]) });
}

/** Whether any Postgres row belongs to the user. */
async function heldInPostgres(ctx: Ctx, tenant: Tenant, userId: string): Promise<boolean> {
  const where = 'WHERE tenant_id = $1 AND user_id = $2';
  const checks = [
    'SELECT 1 FROM users WHERE tenant_id = $1 AND id = $2',
    ...USER_TABLES.map((table) => `SELECT 1 FROM ${table} ${where}`),
    `SELECT 1 FROM api_keys ${where} AND kind = 'application'`,
    `SELECT 1 FROM points_boosts ${where}`,
    `SELECT 1 FROM webhook_deliveries WHERE tenant_id = $1 AND (${ABOUT_USER} OR ${RANKS_USER})`,
  ];
  const { rows } = await ctx.db.query<{ held: boolean }>(`SELECT ${checks.map((c) => `EXISTS (${c})`).join(' OR ')} AS held`, [tenant.id, userId]);
  return rows[0]!.held;
}

/** The user's used idempotency keys: flushed ones from Postgres, the rest from the tenant's change stream. */
async function idempotencyMembers(ctx: Ctx, tenant: Tenant, userId: string): Promise<{ bucket: number; member: string }[]> {
  const seen = new Map<string, { bucket: number; member: string }>();
  const add = (metricId: string, key: string) => {
    const s = idempotencySlot(userId, metricId, key);
    seen.set(`${s.bucket}:${s.member}`, { bucket: s.bucket, member: s.member });
  };
  const { rows } = await ctx.db.query<{ metric_id: string; idempotency_key: string }>(
    `SELECT DISTINCT metric_id, idempotency_key FROM events WHERE tenant_id = $1 AND user_id = $2 AND idempotency_key IS NOT NULL`,
    [tenant.id, userId],
  );
  for (const r of rows) add(r.metric_id, r.idempotency_key);
  const stream = ctx.keys.tenant(tenant.slot).stream;
  let from = '-';
  for (;;) {
    const page = await ctx.redis.xrange(stream, from, '+', 'COUNT', 1000);
    for (const [, flat] of page) {
      const f = recordFields(flat);
      if (f[RECORD_FIELD.kind] !== RECORD_KIND.event) continue;
      const e = JSON.parse(f[RECORD_FIELD.event]!) as { u: string; m: string; ik: string | null };
      if (e.u === userId && e.ik) add(e.m, e.ik);
    }
    if (page.length < 1000) break;
    from = `(${page[page.length - 1]![0]}`;
  }
  return [...seen.values()];
}

/**
 * Erase everything held about a user of a tenant, in Redis and Postgres, and
 * record a tombstone (hash and time only). Idempotent: erasing again answers
 * the first erasure's time; an id never seen (and never erased) is a 404.
 * Either of those changes nothing. Should Postgres fail after Redis was
 * erased, the request fails (503) and a retry finishes the job.
 *
 * Order matters. Redis first, in one script call that also appends a marker
 * to the change stream; then one Postgres transaction that locks the tenant
 * row (a flush batch holds it shared while it writes, so batches in flight
 * finish first and are deleted here, and later ones see the tombstone),
 * deletes every row and stores the tombstone with the marker's position.
 * Records of the user still in the stream are older than the marker: the
 * flusher drops them (see keptAfterErasures in pipeline/flusher.ts). Records after it
 * belong to a new user of the same id.
 */
export async function eraseUser(ctx: Ctx, tenant: Tenant, userId: string): Promise<ErasedUser> {
  const tk = ctx.keys.tenant(tenant.slot);
  const hash = erasureHash(tenant.id, userId);
  // Nothing held (never seen, or erased already): answer without touching anything.
  if (!(await ctx.redis.exists(tk.user(userId))) && !(await heldInPostgres(ctx, tenant, userId))) {
    const prior = await ctx.db.query<{ erased_at: Date }>('SELECT erased_at FROM user_erasures WHERE tenant_id = $1 AND user_hash = $2', [tenant.id, hash]);
    if (!prior.rows[0]) throw notFound(`User "${userId}" not found`);
    return { id: userId, erased: true, erasedAt: prior.rows[0].erased_at.toISOString() };
  }
  // Every sorted set the user may be a member of: boards, and the retention due set.
  const boards: string[] = [tk.retentionDue];
  await scanKeys(ctx.redis, `${tk.boardPrefix}*`, async (keys) => {
    boards.push(...keys);
  });
  const idem = await idempotencyMembers(ctx, tenant, userId);
  // Out of their cohorts first (the others' ranks close up), while the hash still says where they are.
  await leaveLeagues(ctx, tenant, userId);
  const { existed, marker } = await userEraseCall(ctx.engine, tk, { userId, boards, idempotency: idem });
  const ver = streamVersion(marker);
  const now = new Date(ctx.clock.now());

  const out = await tx(ctx.db, async (c) => {
    await c.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenant.id]);
    let found = existed;
    const del = async (sql: string, params: unknown[]) => {
      const r = await c.query(sql, params);
      if (r.rowCount) found = true;
      return r;
    };
    await del('DELETE FROM users WHERE tenant_id = $1 AND id = $2', [tenant.id, userId]);
    for (const table of USER_TABLES) await del(`DELETE FROM ${table} WHERE tenant_id = $1 AND user_id = $2`, [tenant.id, userId]);
    const keys = await del(
      `DELETE FROM api_keys WHERE kind = 'application' AND tenant_id = $1 AND user_id = $2 RETURNING id, prefix`,
      [tenant.id, userId],
    );
    const boosts = await del('DELETE FROM points_boosts WHERE tenant_id = $1 AND user_id = $2', [tenant.id, userId]);
    if (boosts.rowCount) await TenantConfigs.bump(c, tenant.id);
    await del(`DELETE FROM webhook_deliveries WHERE tenant_id = $1 AND ${ABOUT_USER}`, [tenant.id, userId]);
    // Dead letters hold raw change records: the user's id is `u`, or inside an event's JSON as written by the event path.
    await del(
      `DELETE FROM dead_letters WHERE tenant_id = $1 AND (record ->> 'u' = $2 OR strpos(record ->> 'e', '"u":' || to_json($2::text)::text) > 0)`,
      [tenant.id, userId],
    );
    await del(
      `UPDATE webhook_deliveries SET payload = jsonb_set(payload::jsonb, '{leaderboard,rankings}', (
         SELECT coalesce(jsonb_agg(r ORDER BY i), '[]'::jsonb)
         FROM jsonb_array_elements(payload::jsonb -> 'leaderboard' -> 'rankings') WITH ORDINALITY AS x(r, i)
         WHERE r ->> 'userId' IS DISTINCT FROM $2))::text
       WHERE tenant_id = $1 AND ${RANKS_USER}`,
      [tenant.id, userId],
    );
    if (!found) {
      const prior = await c.query<{ erased_at: Date }>('SELECT erased_at FROM user_erasures WHERE tenant_id = $1 AND user_hash = $2', [tenant.id, hash]);
      if (!prior.rows[0]) throw notFound(`User "${userId}" not found`);
      return { erasedAt: prior.rows[0].erased_at, keys: [] as { id: string; prefix: string }[], republish: false };
    }
    await c.query(
      `INSERT INTO user_erasures (tenant_id, user_hash, erased_at, ver) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, user_hash) DO UPDATE SET erased_at = excluded.erased_at, ver = GREATEST(user_erasures.ver, excluded.ver)`,
      [tenant.id, hash, now, ver],
    );
    return { erasedAt: now, keys: keys.rows as { id: string; prefix: string }[], republish: (boosts.rowCount ?? 0) > 0 };
  });

  // Revoked keys stop working at once in every process; their rate-limit state goes too.
  for (const k of out.keys) {
    ctx.auth.forget(k.prefix);
    await ctx.broadcast(`key:${k.prefix}`);
    await ctx.redis.del(ctx.keys.rateLimit(k.prefix)).catch(() => undefined);
  }
  // Boosts aimed at the user were part of the compiled config.
  if (out.republish) {
    await ctx.configs.publish(tenant);
    await ctx.broadcast(`config:${tenant.slot}`);
  }
  ctx.zones.delete(zoneKey(tenant.slot, userId));
  return { id: userId, erased: true, erasedAt: out.erasedAt.toISOString() };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A delivery's payload as the user may see it: of a leaderboard's rankings, only their own. */
function ownPart(payload: Record<string, unknown>, userId: string): Record<string, unknown> {
  const board = payload.leaderboard as { rankings?: unknown } | undefined;
  if (!board || !Array.isArray(board.rankings)) return payload;
  return { ...payload, leaderboard: { ...board, rankings: board.rankings.filter((r: { userId?: string }) => r.userId === userId) } };
}

/**
 * Everything held about a user, as one document: the live state from Redis
 * (profile, totals, streak, leaderboard positions) and the durable record
 * from Postgres (events, awards, completions, streak and rank history,
 * pauses, boosts, keys, webhook deliveries about them). Read-only.
 */
export async function exportUser(ctx: Ctx, tenant: Tenant, userId: string): Promise<UserExport> {
  const tk = ctx.keys.tenant(tenant.slot);
  const cfg = await ctx.configs.get(tenant);
  const fields = new Map(Object.entries(await ctx.redis.hgetall(tk.user(userId))));
  // Everything acknowledged is in the document, whatever the flusher's lag (see Consistency in docs/durability.md).
  if (fields.has(LAST_CHANGE_FIELD)) await ctx.durable.all(tenant);
  fields.delete(LAST_CHANGE_FIELD);
  const q = async <R extends object>(sql: string): Promise<R[]> => (await ctx.db.query<R>(sql, [tenant.id, userId])).rows;

  const profileRows = await q<{ email: string | null; name: string | null; tz: string | null; subscribe_to_emails: boolean; device_tokens: string[] | null; attributes: Record<string, string>; created: Date; updated: Date }>(
    'SELECT email, name, tz, subscribe_to_emails, device_tokens, attributes, created, updated FROM users WHERE tenant_id = $1 AND id = $2',
  );
  const row = profileRows[0];
  if (!isUser(fields) && !row) throw notFound(`User "${userId}" not found`);
  const profile = isUser(fields)
    ? userJson(userId, fields)
    : {
        id: userId, email: row!.email, name: row!.name, tz: row!.tz, deviceTokens: row!.device_tokens,
        subscribeToEmails: row!.subscribe_to_emails, attributes: row!.attributes, control: false,
        created: row!.created.toISOString(), updated: row!.updated.toISOString(),
      };

  const metricKey = (id: string) => cfg.metricsById.get(id)?.key ?? null;
  const metrics = [...cfg.metricsByKey.values()]
    .sort((a, b) => a.slot - b.slot)
    .map((m) => ({ key: m.key, name: m.name, total: Number(fields.get(totalField(m.slot)) ?? 0) }));

  const awards = (await q<{ id: string | null; idx: number | null; system_id: string; trigger_id: string; event_id: string | null; awarded: number; total: number; at: Date; local_date: string; boosts: string[] }>(
    `SELECT id, idx, system_id, trigger_id, event_id, awarded::float8 AS awarded, total::float8 AS total, at, to_char(local_date, 'YYYY-MM-DD') AS local_date, boosts
     FROM awards a WHERE tenant_id = $1 AND user_id = $2 ORDER BY ${awardOrder('ASC')}`,
  )).map(({ idx, ...a }) => ({ ...a, id: storedAwardId(a.id, a.event_id, a.trigger_id, idx) }));
  const points = [...cfg.systemsByKey.values()]
    .sort((a, b) => a.slot - b.slot)
    .map((s) => {
      const total = Number(fields.get(pointsField(s.slot)) ?? 0);
      const level = levelFor(s.levels, total);
      return {
        key: s.key, name: s.name, total, level: level ? levelJson(level) : null,
        awards: awards.filter((a) => a.system_id === s.id).map((a) => ({
          id: a.id, triggerId: a.trigger_id, eventId: a.event_id, awarded: a.awarded, total: a.total,
          date: a.local_date, at: a.at.toISOString(), boosts: a.boosts,
        })),
      };
    });

  const completions = await q<{ achievement_id: string; achieved_at: Date; event_id: string | null }>(
    'SELECT achievement_id, achieved_at, event_id FROM achievement_completions WHERE tenant_id = $1 AND user_id = $2 ORDER BY achieved_at',
  );
  const achievements = completions.map((r) => {
    const a = cfg.achievementsById.get(r.achievement_id);
    return { id: r.achievement_id, key: a?.key ?? null, name: a?.name ?? null, achievedAt: r.achieved_at.toISOString() };
  });
  // Completed in Redis, not flushed yet.
  for (const a of cfg.achievementsById.values()) {
    const at = fields.get(achievedField(a.slot));
    if (at && !achievements.some((x) => x.id === a.id)) achievements.push({ id: a.id, key: a.key, name: a.name, achievedAt: new Date(Number(at)).toISOString() });
  }

  const sk = cfg.streak;
  const periods = await q<{ frequency: string; period: number; length: number; used_freeze: boolean; used_pause: boolean }>(
    'SELECT frequency, period, length, used_freeze, used_pause FROM streak_periods WHERE tenant_id = $1 AND user_id = $2 ORDER BY frequency, period',
  );
  const pauses = await q<{ id: string; start: string; end: string }>(
    `SELECT id, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS "end"
     FROM streak_pauses WHERE tenant_id = $1 AND user_id = $2 ORDER BY start_date`,
  );
  const streak = {
    frequency: sk?.frequency ?? null,
    length: sk ? parseState(fields.get(streakField(FREQ_CODE[sk.frequency]))).len : 0,
    freezes: fields.has(FREEZES_FIELD) ? Number(fields.get(FREEZES_FIELD)) : null,
    history: periods.map((p) => {
      const f = p.frequency as 'd' | 'w' | 'm';
      const dates = periodDates(f, p.period, sk?.weekStart ?? 'monday');
      return { frequency: f === 'd' ? 'daily' : f === 'w' ? 'weekly' : 'monthly', periodStart: dates.start, periodEnd: dates.end, length: p.length, usedFreeze: p.used_freeze, usedPause: p.used_pause };
    }),
    pauses,
  };

  // Live positions: every board set the user is a member of.
  const boardKeys: string[] = [];
  await scanKeys(ctx.redis, `${tk.boardPrefix}*`, async (keys) => {
    boardKeys.push(...keys);
  });
  const live: UserExport['leaderboards']['positions'] = [];
  if (boardKeys.length) {
    const res = await ctx.redis.pipeline(boardKeys.flatMap((k) => [['zrevrank', k, userId], ['zscore', k, userId]])).exec();
    boardKeys.forEach((k, i) => {
      const rank = res?.[2 * i]?.[1] as number | null;
      const score = res?.[2 * i + 1]?.[1] as string | null;
      if (rank === null || rank === undefined || score === null || score === undefined) return;
      const [slot, run, ...group] = k.slice(tk.boardPrefix.length).split(':');
      const b = cfg.boardsBySlot.get(Number(slot));
      const g = group.join(':');
      live.push({ key: b?.key ?? null, run: Number(run), group: splitGroup(g), rank: rank + 1, value: scoreValue(score) });
    });
  }
  const boardKey = (id: string) => [...cfg.boardsByKey.values()].find((b) => b.id === id)?.key ?? null;
  const history = await q<{ leaderboard_id: string; run: number; at: Date; previous_rank: number | null; rank: number | null; previous_value: string | null; value: string | null }>(
    `SELECT leaderboard_id, run, at, previous_rank, rank, previous_value, value FROM leaderboard_events
     WHERE tenant_id = $1 AND user_id = $2 ORDER BY seq`,
  );
  const results = await q<{ leaderboard_id: string; run: number; grp: string; rank: number; value: string }>(
    'SELECT leaderboard_id, run, grp, rank, value FROM leaderboard_results WHERE tenant_id = $1 AND user_id = $2 ORDER BY leaderboard_id, run',
  );
  const num = (v: string | null) => (v === null ? null : Number(v));

  const events = await q<{ id: string; metric_id: string; value: string; total: string; local_date: string; occurred_at: Date; idempotency_key: string | null; attributes: Record<string, string> | null }>(
    `SELECT id, metric_id, value, total, to_char(local_date, 'YYYY-MM-DD') AS local_date, occurred_at, idempotency_key, attributes
     FROM events WHERE tenant_id = $1 AND user_id = $2 ORDER BY occurred_at, id`,
  );
  const eventDays = await q<{ metric_id: string; local_date: string; events: number; value: string }>(
    `SELECT metric_id, to_char(local_date, 'YYYY-MM-DD') AS local_date, events, value FROM event_days
     WHERE tenant_id = $1 AND user_id = $2 ORDER BY local_date, metric_id`,
  );
  const pointsDays = await q<{ system_id: string; local_date: string; awarded: string }>(
    `SELECT system_id, to_char(local_date, 'YYYY-MM-DD') AS local_date, awarded FROM points_days
     WHERE tenant_id = $1 AND user_id = $2 ORDER BY local_date, system_id`,
  );
  const boosts = await q<{ id: string; system_id: string; name: string; start: string; end: string | null; multiplier: string }>(
    `SELECT id, system_id, name, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS "end", multiplier
     FROM points_boosts WHERE tenant_id = $1 AND user_id = $2 ORDER BY seq`,
  );
  const keys = await q<{ id: string; prefix: string; created: Date }>(
    `SELECT id, prefix, created FROM api_keys WHERE kind = 'application' AND tenant_id = $1 AND user_id = $2 ORDER BY created`,
  );
  const deliveries = await q<{ id: string; webhook_id: string; type: string; status: string; created: Date; delivered_at: Date | null; payload: string }>(
    `SELECT id, webhook_id, type, status, created, delivered_at, payload FROM webhook_deliveries
     WHERE tenant_id = $1 AND (${ABOUT_USER} OR ${RANKS_USER}) ORDER BY created, id`,
  );
  const messages = await q<MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE tenant_id = $1 AND user_id = $2 ORDER BY created, id`);
  const leagueResults = await q<{ league_id: string; run: number; cohort: string; tier_key: string; rank: number; value: string; outcome: string; new_tier_key: string }>(
    'SELECT league_id, run, cohort, tier_key, rank, value, outcome, new_tier_key FROM league_results WHERE tenant_id = $1 AND user_id = $2 ORDER BY league_id, run',
  );
  const systemKey = (id: string) => [...cfg.systemsByKey.values()].find((s) => s.id === id)?.key ?? null;

  return {
    id: userId,
    exportedAt: new Date(ctx.clock.now()).toISOString(),
    profile,
    metrics,
    points,
    achievements,
    streak,
    leaderboards: {
      positions: live,
      history: history.map((h) => ({
        key: boardKey(h.leaderboard_id), run: h.run, at: h.at.toISOString(), previousRank: h.previous_rank, rank: h.rank,
        previousValue: num(h.previous_value), value: num(h.value),
      })),
      results: results.map((r) => ({ key: boardKey(r.leaderboard_id), run: r.run, group: splitGroup(r.grp), rank: r.rank, value: Number(r.value) })),
    },
    events: events.map((e) => ({
      id: e.id, metric: metricKey(e.metric_id), value: Number(e.value), total: Number(e.total), date: e.local_date,
      at: e.occurred_at.toISOString(), idempotencyKey: e.idempotency_key, attributes: e.attributes ?? {},
    })),
    eventDays: eventDays.map((d) => ({ metric: metricKey(d.metric_id), date: d.local_date, events: d.events, value: Number(d.value) })),
    pointsDays: pointsDays.map((d) => ({ points: systemKey(d.system_id), date: d.local_date, awarded: Number(d.awarded) })),
    boosts: boosts.map((b) => ({ id: b.id, points: systemKey(b.system_id), name: b.name, start: b.start, end: b.end, multiplier: Number(b.multiplier) })),
    apiKeys: keys.map((k) => ({ id: k.id, prefix: k.prefix, created: k.created.toISOString() })),
    webhookDeliveries: deliveries.map((d) => ({
      id: d.id, webhookId: d.webhook_id, type: d.type, status: d.status, created: d.created.toISOString(), deliveredAt: iso(d.delivered_at),
      payload: ownPart(JSON.parse(d.payload) as Record<string, unknown>, userId),
    })),
    messages: messages.map(messageJson),
    leagues: leagueResults.map((r) => {
      const l = [...cfg.leaguesBySlot.values()].find((x) => x.id === r.league_id);
      return {
        key: l?.key ?? null, ...(l ? runDates(l, r.run) : { start: '', end: '' }), cohortId: r.cohort, tier: r.tier_key, rank: r.rank,
        value: Number(r.value), outcome: r.outcome, newTier: r.new_tier_key,
      };
    }),
  };
}
