import type { Pool } from 'pg';
import type { Logger } from '../log';
import type { Keys } from '../redis/keys';
import type { RedisClient } from '../redis/client';
import { idempotencySlot } from '../domain/idempotency';
import { scoreTick, splitGroup } from '../domain/leaderboards';
import { completionsField } from '../domain/achievements';
import type { TenantConfigs } from './tenant-config';
import type { Tenant, Tenants } from './tenants';

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

  // User hashes, a page of users at a time.
  let users = 0;
  let after = '';
  for (;;) {
    const { rows: page } = await db.query<{ user_id: string; fields: Record<string, [string | null, unknown]> }>(
      'SELECT user_id, fields FROM user_state WHERE tenant_id = $1 AND user_id > $2 ORDER BY user_id LIMIT $3',
      [t.id, after, PAGE],
    );
    if (page.length === 0) break;
    const pipe = redis.pipeline();
    for (const r of page) {
      const set: string[] = [];
      for (const [field, [value]] of Object.entries(r.fields)) if (value !== null) set.push(field, value);
      if (set.length) pipe.hset(tk.user(r.user_id), ...set);
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
  return users;
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
