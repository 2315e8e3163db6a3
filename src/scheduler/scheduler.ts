import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context';
import { localDate } from '../domain/time';
import { REVIEW, timeSignature, userBoostsArg } from '../domain/points';
import { achievementSignature } from '../domain/achievements';
import type { TenantKeys } from '../redis/keys';
import { scanKeys } from '../redis/client';
import { opensAt, runDates, runFinalAt, RunUnit, TIE_BITS } from '../domain/leaderboards';
import { configTx } from '../api/admin/config-tx';
import { tx } from '../store/db';
import type { Tenant } from '../store/tenants';
import { Lease } from './lease';

const BATCH = 500;

/**
 * Background work that no request triggers: time-based points. It runs in
 * every process and acts only while holding the lease. Every step is safe to
 * repeat (the grant script counts what it granted), so a lapsed lease or
 * several holders at once never grant twice.
 */
export class Scheduler {
  private readonly lease: Lease;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;

  constructor(
    private readonly ctx: Ctx,
    private readonly intervalMs = 1000,
  ) {
    this.lease = new Lease(ctx.redis, ctx.keys.schedulerLease, Math.max(5000, intervalMs * 5));
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.tickOnce()
        .catch((err) => this.ctx.log.warn('scheduler run failed', { err: (err as Error).message }))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    this.timer = setTimeout(tick, this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.lease.release();
  }

  /** One round if we hold (or win) the lease. */
  async tickOnce(): Promise<void> {
    if (!(await this.lease.acquire())) return;
    await this.runOnce();
  }

  /** Do everything that is due now, lease or not (tests call this directly). */
  async runOnce(): Promise<number> {
    let visited = 0;
    for (const t of await this.ctx.tenants.all()) {
      await this.leaderboards(t);
      await this.reviewAchievements(t);
      visited += await this.timeTriggers(t);
    }
    return visited;
  }

  /**
   * After achievements are activated or edited, complete them for every user
   * who already qualifies (once per change of the active set).
   */
  private async reviewAchievements(t: Tenant): Promise<void> {
    const { ctx } = this;
    const tk = ctx.keys.tenant(t.slot);
    const cfg = await ctx.configs.get(t);
    const signature = achievementSignature(cfg.achievementsById.values());
    if ((await ctx.redis.get(tk.reviewSignature)) === signature) return;
    const now = ctx.clock.now();
    await this.forEachUser(tk, (id) => this.userScript(t, id, now, 'user_review', [tk.config, tk.user(id), tk.stream, tk.stats], REVIEW));
    // Recorded after the sweep: a crash midway means the next run sweeps again (harmless).
    await ctx.redis.set(tk.reviewSignature, signature);
  }

  /**
   * Leaderboard states: scheduled boards open when their start date begins
   * anywhere; runs are finalized (rankings stored, live sets dropped) once
   * their last day has ended everywhere; a board past its end date finishes.
   */
  private async leaderboards(t: Tenant): Promise<void> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const { rows } = await ctx.db.query<{
      id: string; slot: number; status: string; start: string; end: string | null; run_unit: RunUnit | null; run_interval: number | null; finalized_run: number;
    }>(
      `SELECT id, slot, status, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS "end",
              run_unit, run_interval, finalized_run
       FROM leaderboards WHERE tenant_id = $1 AND status IN ('scheduled', 'active')`,
      [t.id],
    );
    const moves: [string, string][] = [];
    for (const b of rows) {
      const shape = { start: b.start, end: b.end, runUnit: b.run_unit, runInterval: b.run_interval };
      if (b.status === 'scheduled') {
        if (now >= opensAt(b.start)) moves.push([b.id, 'active']);
        continue;
      }
      // Finalize ended runs, in order (a bounded number per pass).
      for (let r = b.finalized_run + 1, n = 0; n < 100; r++, n++) {
        const dates = runDates(shape, r);
        const last = b.end !== null && (dates.end === null || dates.end > b.end) ? b.end : dates.end;
        if (last === null || now < runFinalAt(last) || (b.end !== null && dates.start > b.end)) break;
        await this.finalizeRun(t, b.id, b.slot, r);
      }
      if (b.end !== null && now >= runFinalAt(b.end)) moves.push([b.id, 'finished']);
    }
    if (moves.length === 0) return;
    await configTx(ctx, t, async (c) => {
      for (const [id, status] of moves) await c.query('UPDATE leaderboards SET status = $2, updated = $3 WHERE id = $1', [id, status, new Date(now)]);
    });
  }

  /** Store a run's final rankings (every group), then drop its live sets. Safe to repeat. */
  private async finalizeRun(t: Tenant, boardId: string, slot: number, run: number): Promise<void> {
    const { ctx } = this;
    const tk = ctx.keys.tenant(t.slot);
    const prefix = `${tk.boardPrefix}${slot}:${run}:`;
    const keys: string[] = [];
    await scanKeys(ctx.redis, `${prefix}*`, async (found) => {
      keys.push(...found);
    });
    const rows: { g: string; u: string; rk: number; v: number }[] = [];
    for (const key of keys) {
      const flat = await ctx.redis.zrevrange(key, 0, -1, 'WITHSCORES');
      for (let i = 0; i < flat.length; i += 2) rows.push({ g: key.slice(prefix.length), u: flat[i]!, rk: i / 2 + 1, v: Math.floor(Number(flat[i + 1]) / TIE_BITS) });
    }
    await tx(ctx.db, async (c) => {
      if (rows.length) {
        await c.query(
          `INSERT INTO leaderboard_results (tenant_id, leaderboard_id, run, grp, user_id, rank, value)
           SELECT $1, $2, $3, x.g, x.u, x.rk, x.v FROM jsonb_to_recordset($4::jsonb) AS x(g text, u text, rk integer, v bigint)
           ON CONFLICT DO NOTHING`,
          [t.id, boardId, run, JSON.stringify(rows)],
        );
      }
      await c.query('UPDATE leaderboards SET finalized_run = greatest(finalized_run, $2) WHERE id = $1', [boardId, run]);
      await c.query('DELETE FROM board_entries WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3', [t.id, boardId, run]);
    });
    if (keys.length) await ctx.redis.unlink(...keys);
    await ctx.redis.hdel(tk.boardTicks, `${slot}:${run}`);
  }

  /**
   * Run a per-user background script (same arguments for each: config
   * version, now, user, program, the user's boosts, local date, operation id)
   * in the user's zone, reloading the config when the script says it is stale.
   */
  private async userScript(t: Tenant, id: string, now: number, script: 'user_review' | 'time_grant', keys: string[], program: string | null): Promise<void> {
    const { ctx } = this;
    const tz = (await ctx.redis.hget(ctx.keys.tenant(t.slot).user(id), 'tz')) || 'UTC';
    let cfg = await ctx.configs.get(t);
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = (await ctx.scripts.run(script, keys, [
        cfg.ver, now, id, cfg.program(program), userBoostsArg(cfg.userBoosts.get(id)), localDate(now, tz), randomUUID(),
      ])) as string[];
      if (r[0] !== 'STALE') return;
      cfg = await ctx.configs.reload(t);
    }
  }

  /** Call `fn` with the id of every user of the tenant (SCAN pages). */
  private async forEachUser(tk: TenantKeys, fn: (userId: string) => Promise<void>): Promise<void> {
    const prefix = tk.user('');
    await scanKeys(this.ctx.redis, tk.users, async (keys) => {
      for (const k of keys) await fn(k.slice(prefix.length));
    });
  }

  /** Grant every user whose time-trigger points are due. Returns how many users were visited. */
  private async timeTriggers(t: Tenant): Promise<number> {
    const { ctx } = this;
    const tk = ctx.keys.tenant(t.slot);
    const cfg = await ctx.configs.get(t);
    const signature = timeSignature(cfg.systemsByKey.values());
    if (!signature && !(await ctx.redis.exists(tk.due))) return 0;
    const now = ctx.clock.now();
    // A new or re-activated time trigger: every existing user is due for a look.
    if ((await ctx.redis.get(tk.dueSignature)) !== signature) {
      await this.forEachUser(tk, async (id) => {
        await ctx.redis.zadd(tk.due, 'LT', now, id);
      });
      await ctx.redis.set(tk.dueSignature, signature);
    }

    let visited = 0;
    for (;;) {
      const ids = await ctx.redis.zrangebyscore(tk.due, '-inf', now, 'LIMIT', 0, BATCH);
      if (ids.length === 0) return visited;
      for (const id of ids) {
        await this.userScript(t, id, now, 'time_grant', [tk.config, tk.user(id), tk.due, tk.stream], null);
        visited++;
      }
      if (ids.length < BATCH) return visited;
    }
  }
}
