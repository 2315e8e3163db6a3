import type { Pool } from 'pg';
import type { Logger } from '../observability/log';
import type { Keys } from '../redis/keys';
import type { RedisClient } from '../redis/client';
import { idempotencySlot } from '../domain/idempotency';
import { scoreTick, splitGroup } from '../domain/leaderboards';
import { completionsField } from '../domain/achievements';
import type { TenantConfig, TenantConfigs } from './tenant-config';
import { awardId } from '../domain/points';
import { awardOrder } from './points-awards';
import { encodeAward, encodeBoardChange, encodeList, encodeRecent, RECENT_KEPT, recentAwardsField, recentBoardField, TRACKED_FIELD } from '../domain/recent-history';
import type { Tenant, Tenants } from './tenants';
import { stateValues } from './user-state';
import { restoreLeagues } from './league-restore';

const PAGE = 5000;

/**
 * Rebuild every tenant's Redis state from Postgres: the published config,
 * each user hash exactly as last written (the change stream carries every
 * changed field), counters, used idempotency keys and live leaderboards.
 * What the scheduler derives by itself (who is due for time-based points,
 * achievement reviews) it rebuilds on its next pass. Safe to run twice.
 */
export async function restore(deps: { db: Pool; redis: RedisClient; keys: Keys; tenants: Tenants; configs: TenantConfigs; log: Logger }): Promise<{ tenants: number; users: number }> {
  let users = 0;
  const all = await deps.tenants.all();
  for (const t of all) users += await restoreTenant(deps, t);
  return { tenants: all.length, users };
}

async function restoreTenant(deps: { db: Pool; redis: RedisClient; keys: Keys; configs: TenantConfigs }, t: Tenant): Promise<number> {
  const { db, redis } = deps;
  const tk = deps.keys.tenant(t.slot);
  const cfg = await deps.configs.publish(t);

  const recent = await recentLists(db, t, cfg);

  // User hashes (and their recent history), a page of users at a time.
  let users = 0;
  let after = '';
  for (;;) {
    const { rows: page } = await db.query<{ user_id: string; state: string; recent: string | null }>(
      'SELECT user_id, state, recent FROM user_state WHERE tenant_id = $1 AND user_id > $2 ORDER BY user_id LIMIT $3',
      [t.id, after, PAGE],
    );
    if (page.length === 0) break;
    const pipe = redis.pipeline();
    for (const r of page) {
      const set: string[] = [];
      for (const [field, value] of stateValues(r.state, r.recent)) set.push(field, value);
      if (set.length) pipe.hset(tk.user(r.user_id), ...set);
      // Rebuilt from Postgres, which holds everything: the user's recent history is known whole.
      pipe.set(tk.recent(r.user_id), encodeRecent(new Map([[TRACKED_FIELD, '1'], ...(recent.get(r.user_id) ?? [])])));
    }
    await pipe.exec();
    const ids = page.map((r) => r.user_id);
    users += ids.length;
    after = ids[ids.length - 1]!;
  }

  // Counters: users, and completions of each achievement.
  const counts = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE tenant_id = $1', [t.id]);
  const stats: Record<string, string> = { users: String(counts.rows[0]!.n) };
  const done = await db.query<{ achievement_id: string; n: number }>(
    'SELECT achievement_id, count(*)::int AS n FROM achievement_completions WHERE tenant_id = $1 GROUP BY 1',
    [t.id],
  );
  for (const r of done.rows) {
    const a = cfg.achievementsById.get(r.achievement_id);
    if (a) stats[completionsField(a.slot)] = String(r.n);
  }
  await redis.hset(tk.stats, stats);

  // Used idempotency keys.
  const idem = await db.query<{ user_id: string; metric_id: string; idempotency_key: string }>(
    'SELECT user_id, metric_id, idempotency_key FROM events WHERE tenant_id = $1 AND idempotency_key IS NOT NULL',
    [t.id],
  );
  for (let i = 0; i < idem.rows.length; i += PAGE) {
    const pipe = redis.pipeline();
    for (const r of idem.rows.slice(i, i + PAGE)) {
      const s = idempotencySlot(r.user_id, r.metric_id, r.idempotency_key);
      pipe.sadd(tk.idempotency(s.bucket), s.member);
    }
    await pipe.exec();
  }

  // Live leaderboards with their exact scores, and each run's update counter.
  const entries = await db.query<{ leaderboard_id: string; run: number; grp: string; user_id: string; score: number }>(
    'SELECT leaderboard_id, run, grp, user_id, score FROM board_entries WHERE tenant_id = $1 AND score IS NOT NULL',
    [t.id],
  );
  const slotOf = new Map([...cfg.boardsBySlot.values()].map((b) => [b.id, b.slot]));
  const ticks = new Map<string, number>();
  const pipe = redis.pipeline();
  for (const e of entries.rows) {
    const slot = slotOf.get(e.leaderboard_id);
    if (slot === undefined) continue;
    pipe.zadd(tk.board(slot, e.run, splitGroup(e.grp)), e.score, e.user_id);
    const field = `${slot}:${e.run}`;
    ticks.set(field, Math.max(ticks.get(field) ?? 0, scoreTick(e.score)));
  }
  for (const [field, tick] of ticks) pipe.hset(tk.boardTicks, field, String(tick));
  await pipe.exec();
  await restoreLeagues(db, redis, tk, t, cfg);
  return users;
}

/**
 * Each user's recent-history lists (src/domain/recent-history.ts) from the rows they
 * mirror: the newest awards per points system, and the newest changes on
 * each board in the run of the user's latest change there.
 */
async function recentLists(db: Pool, t: Tenant, cfg: TenantConfig): Promise<Map<string, Map<string, string>>> {
  const lists = new Map<string, Map<string, string>>();
  const add = (user: string, field: string, value: string) => {
    let mine = lists.get(user);
    if (!mine) lists.set(user, (mine = new Map()));
    mine.set(field, value);
  };
  const systemSlot = new Map([...cfg.systemsByKey.values()].map((s) => [s.id, s.slot]));
  const awards = await db.query<{
    user_id: string; system_id: string; id: string | null; idx: number | null; event_id: string | null; trigger_id: string; trigger_version: string | null;
    awarded: string; total: string; at: Date; d: string; boosts: string[]; n: number;
  }>(
    `SELECT user_id, system_id, id, idx, event_id, trigger_id, trigger_version, awarded::text, total::text, at, to_char(local_date, 'YYYY-MM-DD') AS d, boosts, n::int
     FROM (SELECT *, row_number() OVER (PARTITION BY user_id, system_id ORDER BY ${awardOrder('DESC')}) AS n FROM awards a WHERE tenant_id = $1) a
     WHERE n <= $2 ORDER BY user_id, system_id, n`,
    [t.id, RECENT_KEPT + 1],
  );
  for (const group of runs(awards.rows, (r) => `${r.user_id}\0${r.system_id}`)) {
    const slot = systemSlot.get(group[0]!.system_id);
    if (slot === undefined) continue;
    const entries: string[] = [];
    for (const r of group.slice(0, RECENT_KEPT)) {
      // The award's place among its operation's, which its id derives from.
      const index = r.idx ?? (r.event_id === null ? -1 : [...Array(RECENT_KEPT).keys()].find((i) => awardId(r.event_id!, r.trigger_id, i) === r.id) ?? -1);
      if (index < 0) break;
      entries.push(encodeAward({
        opId: r.event_id!, at: r.at.getTime(), index, triggerSlot: cfg.triggersById.get(r.trigger_id)?.slot ?? -1,
        versionTag: r.trigger_version?.slice(0, 8) ?? '', awarded: Number(r.awarded), total: Number(r.total),
        date: r.d, boostTags: r.boosts.map((b) => b.slice(0, 8)),
      }));
    }
    add(group[0]!.user_id, recentAwardsField(slot), encodeList(entries.length === group.length, '', entries));
  }

  const boardSlot = new Map([...cfg.boardsBySlot.values()].map((b) => [b.id, b.slot]));
  const changes = await db.query<{
    leaderboard_id: string; user_id: string; run: number; at: Date; d: string;
    previous_rank: number | null; rank: number | null; previous_value: string | null; value: string | null;
  }>(
    `SELECT leaderboard_id, user_id, run, at, to_char(local_date, 'YYYY-MM-DD') AS d, previous_rank, rank, previous_value, value
     FROM (SELECT *, row_number() OVER (PARTITION BY leaderboard_id, user_id ORDER BY at DESC, seq DESC) AS n FROM leaderboard_events WHERE tenant_id = $1) e
     WHERE n <= $2 ORDER BY leaderboard_id, user_id, n`,
    [t.id, RECENT_KEPT + 1],
  );
  for (const group of runs(changes.rows, (r) => `${r.leaderboard_id}\0${r.user_id}`)) {
    const slot = boardSlot.get(group[0]!.leaderboard_id);
    if (slot === undefined) continue;
    const run = group[0]!.run;
    const end = group.findIndex((r) => r.run !== run);
    const mine = end < 0 ? group : group.slice(0, end);
    // Whole when the run's changes end within the rows read, at an earlier run
    // or at the user's first change (runs move on, but for a zone change).
    const complete = mine.length <= RECENT_KEPT && (end < 0 ? group.length <= RECENT_KEPT : group[end]!.run < run);
    const entries = mine.slice(0, RECENT_KEPT).map((r) => encodeBoardChange({
      at: r.at.getTime(), date: r.d, previousRank: r.previous_rank, rank: r.rank,
      previousValue: r.previous_value === null ? null : Number(r.previous_value), value: r.value === null ? null : Number(r.value),
    }));
    add(group[0]!.user_id, recentBoardField(slot), encodeList(complete, String(run), entries));
  }
  return lists;
}

/** Rows already ordered by a key, in groups of equal keys. */
function runs<R>(rows: R[], key: (r: R) => string): R[][] {
  const out: R[][] = [];
  let last: string | null = null;
  for (const r of rows) {
    const k = key(r);
    if (k !== last) out.push([]);
    out[out.length - 1]!.push(r);
    last = k;
  }
  return out;
}

/**
 * Restore once per Redis: when the deployment's marker is missing (a new or
 * emptied Redis), one process rebuilds under a lock while the others wait.
 */
export async function restoreIfEmpty(deps: Parameters<typeof restore>[0]): Promise<void> {
  const { redis, keys, log } = deps;
  const marker = keys.restored;
  const lock = keys.restoreLock;
  for (;;) {
    if (await redis.exists(marker)) return;
    if ((await redis.set(lock, String(process.pid), 'PX', 600_000, 'NX')) === 'OK') {
      try {
        const started = Date.now();
        const r = await restore(deps);
        await redis.set(marker, new Date().toISOString());
        if (r.users > 0) log.info('rebuilt redis from postgres', { ...r, ms: Date.now() - started });
        return;
      } finally {
        await redis.del(lock);
      }
    }
    await new Promise((res) => setTimeout(res, 200));
  }
}
