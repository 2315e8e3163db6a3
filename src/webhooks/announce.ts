import { DateTime } from 'luxon';
import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import { tx } from '../store/db';
import { derivedId } from '../domain/ids';
import { opensAt, runDates, runFinalAt, runIndex, RunUnit, splitGroup } from '../domain/leaderboards';
import type { WebhookEvent } from './events';
import { enqueue, subscribedTypes } from './outbox';
import { boardPayload, liveRankings, TOP_RANKINGS, withNames } from './payloads';
import { ZONE_FIELD } from '../domain/user-hash';
import { utcDate, zoneOr } from '../domain/time';

/**
 * Events no change record carries: they happen because time passes. The
 * scheduler reports them as it sees them; each is marked as announced in
 * the same transaction that queues it, so a rerun or a second scheduler
 * never reports it twice. Marks advance even when no endpoint listens, so an
 * endpoint created later is not sent stale news.
 */

/** leaderboard.started: the newest run of each active board, once it has begun in the most advanced zone. */
export async function announceRuns(ctx: Ctx, t: Tenant, now: number): Promise<void> {
  const { rows } = await ctx.db.query<{
    id: string; slot: number; start: string; end: string | null; run_unit: RunUnit | null; run_interval: number | null; started_run: number;
  }>(
    `SELECT id, slot, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS "end", run_unit, run_interval, started_run
     FROM leaderboards WHERE tenant_id = $1 AND status = 'active'`,
    [t.id],
  );
  // The date where it is latest (UTC+14): a run has begun once its first day has begun there.
  const date = utcDate(now + 14 * 3_600_000);
  for (const b of rows) {
    const shape = { start: b.start, end: b.end, runUnit: b.run_unit, runInterval: b.run_interval };
    const run = runIndex(shape, date);
    if (run === null || run <= b.started_run || now < opensAt(runDates(shape, run).start)) continue;
    if (b.end !== null && runDates(shape, run).start > b.end) continue;
    const events: WebhookEvent[] = [];
    if ((await subscribedTypes(ctx.db, t.id)).has('leaderboard.started')) {
      const cfg = await ctx.configs.get(t);
      const board = cfg.boardsBySlot.get(b.slot);
      if (board) {
        // Ranked as it stands (usually nobody yet); a broken-down board has no single ranking to show.
        const rankings = board.breakdownKeys.length ? [] : await liveRankings(ctx.redis, ctx.keys.tenant(t.slot), board, run, []);
        events.push({
          id: derivedId('webhook', 'leaderboard.started', b.id, String(run)),
          type: 'leaderboard.started',
          payload: JSON.stringify({ type: 'leaderboard.started', leaderboard: boardPayload(cfg, board, run, 'active', rankings, []) }),
          due: now,
        });
      }
    }
    await tx(ctx.db, async (c) => {
      const marked = await c.query('UPDATE leaderboards SET started_run = $2 WHERE id = $1 AND started_run < $2', [b.id, run]);
      if (marked.rowCount) await enqueue(c, t.id, events, now);
    });
  }
}

/**
 * leaderboard.finished for a run being finalized: one per group, with its
 * top rankings (`rows` sorted by rank within each group). Queued by the
 * caller in the finalizing transaction.
 */
export async function finishedEvents(
  ctx: Ctx,
  t: Tenant,
  boardSlot: number,
  run: number,
  rows: { g: string; u: string; rk: number; v: number }[],
  now: number,
): Promise<WebhookEvent[]> {
  if (!(await subscribedTypes(ctx.db, t.id)).has('leaderboard.finished')) return [];
  const cfg = await ctx.configs.get(t);
  const b = cfg.boardsBySlot.get(boardSlot);
  if (!b) return [];
  const dates = runDates(b, run);
  // The run holding the board's end date is its last: the board finishes with it.
  const status = b.end !== null && (dates.end === null || dates.end >= b.end) ? 'finished' : 'active';
  const groups = new Map<string, { userId: string; rank: number; value: number }[]>();
  if (!b.breakdownKeys.length) groups.set('', []);
  for (const r of rows) {
    const top = groups.get(r.g) ?? [];
    groups.set(r.g, top);
    if (r.rk <= TOP_RANKINGS) top.push({ userId: r.u, rank: r.rk, value: r.v });
  }
  const out: WebhookEvent[] = [];
  for (const [g, top] of groups) {
    const rankings = await withNames(ctx.redis, ctx.keys.tenant(t.slot), top.sort((x, y) => x.rank - y.rank));
    const group = splitGroup(g);
    out.push({
      id: derivedId('webhook', 'leaderboard.finished', b.id, String(run), g),
      type: 'leaderboard.finished',
      payload: JSON.stringify({ type: 'leaderboard.finished', leaderboard: boardPayload(cfg, b, run, status, rankings, group) }),
      due: now,
    });
  }
  return out;
}

interface BoostRow {
  id: string;
  name: string;
  user_id: string | null;
  start: string;
  end: string | null;
  multiplier: number;
  rounding: string;
  announced_start: string | null;
  announced_end: string | null;
  system_id: string;
  system_key: string;
  system_name: string;
}

/**
 * points.boost_started and points.boost_finished. A boost for everyone
 * starts when its first day begins anywhere and finishes once its last day
 * has ended everywhere (the rule of leaderboard runs); a boost for one user
 * follows that user's own midnight.
 */
export async function announceBoosts(ctx: Ctx, t: Tenant, now: number): Promise<void> {
  const { rows } = await ctx.db.query<BoostRow>(
    `SELECT b.id, b.name, b.user_id, to_char(b.start_date, 'YYYY-MM-DD') AS start, to_char(b.end_date, 'YYYY-MM-DD') AS "end",
            b.multiplier::float8 AS multiplier, b.rounding, to_char(b.announced_start, 'YYYY-MM-DD') AS announced_start,
            to_char(b.announced_end, 'YYYY-MM-DD') AS announced_end, s.id AS system_id, s.key AS system_key, s.name AS system_name
     FROM points_boosts b JOIN points_systems s ON s.id = b.system_id
     WHERE b.tenant_id = $1 AND (b.announced_start IS DISTINCT FROM b.start_date OR (b.end_date IS NOT NULL AND b.announced_end IS DISTINCT FROM b.end_date))`,
    [t.id],
  );
  if (rows.length === 0) return;
  const wanted = await subscribedTypes(ctx.db, t.id);
  const { defaultZone } = await ctx.configs.get(t);
  for (const b of rows) {
    const zone = b.user_id ? zoneOr(await ctx.redis.hget(ctx.keys.tenant(t.slot).user(b.user_id), ZONE_FIELD), defaultZone) : null;
    const midnight = (date: string) => DateTime.fromISO(date, { zone: zone ?? 'UTC' }).toMillis();
    const startAt = zone ? midnight(b.start) : opensAt(b.start);
    const endAt = b.end === null ? null : zone ? midnight(b.end) + 86_400_000 : runFinalAt(b.end);
    const boost = (status: 'active' | 'finished') => ({
      id: b.id, name: b.name, status, userId: b.user_id, pointsSystemId: b.system_id, pointsSystemKey: b.system_key,
      pointsSystemName: b.system_name, start: b.start, end: b.end, multiplier: b.multiplier, rounding: b.rounding,
    });
    if (b.announced_start !== b.start && now >= startAt) {
      await mark(ctx, t, now, 'announced_start', 'start_date', b.id, wanted.has('points.boost_started'), {
        id: derivedId('webhook', 'points.boost_started', b.id, b.start),
        type: 'points.boost_started',
        payload: JSON.stringify({ type: 'points.boost_started', timestamp: new Date(midnight(b.start)).toISOString(), boost: boost('active') }),
        due: now,
      });
    }
    if (b.end !== null && endAt !== null && b.announced_end !== b.end && now >= endAt && now >= startAt) {
      await mark(ctx, t, now, 'announced_end', 'end_date', b.id, wanted.has('points.boost_finished'), {
        id: derivedId('webhook', 'points.boost_finished', b.id, b.end),
        type: 'points.boost_finished',
        payload: JSON.stringify({ type: 'points.boost_finished', timestamp: new Date(midnight(b.end) + 86_399_000).toISOString(), boost: boost('finished') }),
        due: now,
      });
    }
  }
}

/** Record a boost date as announced and, if this call did it, queue the event. */
async function mark(ctx: Ctx, t: Tenant, now: number, column: string, dateColumn: string, id: string, wanted: boolean, event: WebhookEvent): Promise<void> {
  await tx(ctx.db, async (c) => {
    const r = await c.query(`UPDATE points_boosts SET ${column} = ${dateColumn} WHERE id = $1 AND ${column} IS DISTINCT FROM ${dateColumn}`, [id]);
    if (r.rowCount && wanted) await enqueue(c, t.id, [event], now);
  });
}
