import { userJobCall, STALE, withConfig } from '../engine';
import { randomUUID } from 'node:crypto';
import { Ctx } from '../context';
import { localDate, zoneOr } from '../domain/time';
import { REVIEW, timeSignature, userBoostsArg } from '../domain/points';
import { achievementSignature } from '../domain/achievements';
import type { TenantKeys } from '../redis/keys';
import { scanKeys } from '../redis/client';
import { opensAt, runDates, runFinalAt, runMayBeFinal, RunUnit, scoreValue } from '../domain/leaderboards';
import { configTx } from '../store/config-tx';
import { tx } from '../store/db';
import type { Tenant } from '../store/tenants';
import { Lease } from './lease';
import { DailyRollups } from '../store/rollups';
import { schedulerRuns } from '../observability/metrics';
import { announceBoosts, announceRuns, finishedEvents } from '../webhooks/announce';
import { enqueue, subscribedTypes } from '../webhooks/outbox';
import { streakCall } from '../services/streak-calls';
import { retentionPass } from './retention';
import { PERCENTILES_REFRESH_MS, refreshPercentiles } from '../store/wrapped-percentiles';
import { ZONE_FIELD } from '../domain/user-hash';
import { EventRecordUpkeep } from './event-record';
import { finalizeLeagues } from './leagues';
import { Poller } from '../poller';

const BATCH = 500;
/** Users a streak sweep visits per scheduler pass. */
const SWEEP_USERS = 5_000;
/** Webhook events that happen when a streak is settled, not when the user acts. */
const SETTLE_EVENTS = ['streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned'] as const;

/**
 * A job of the scheduler. A deployment's job runs once a pass; a tenant's job
 * once a pass for each tenant. `every`: at most that often (per tenant for a
 * tenant's job; a clock gone back runs it again), else on every pass. `soft`:
 * its failure is logged and the pass goes on (it only saves work a request
 * would do itself); any other failure ends the pass, retried on the next one.
 * A tenant's job may return how many users it visited (runOnce sums them).
 */
type Job = { name: string; every?: number; soft?: string } & (
  | { scope: 'deployment'; run: () => Promise<void> }
  | { scope: 'tenant'; run: (t: Tenant) => Promise<number | void> }
);

/**
 * Background work that no request triggers: the jobs below, on every pass
 * (SCHEDULER_INTERVAL_MS) of the one process holding the lease. Every job is
 * safe to repeat (the grant script counts what it granted), so a lapsed lease
 * or several holders at once never grant twice.
 */
export class Scheduler {
  private readonly lease: Lease;
  private readonly poller: Poller<void>;
  /** Per tenant: the hour the current streak sweep started, and the last user id it visited (null: finished). */
  private readonly sweeps = new Map<string, { hour: number; after: string | null }>();
  /** Daily sums for the analytics, made here so a request seldom has to. */
  private readonly rollups: DailyRollups;
  /** Per tenant: when Wrapped's percentiles of the year were last refreshed by this process. */
  private readonly percentilesYearAt = new Map<string, number>();
  /** When each job with an interval last ran in this process (`name` or `name:tenantId`). */
  private readonly ranAt = new Map<string, number>();
  /** The events table's partitions: made ahead, dropped past EVENT_RETENTION_DAYS. */
  private readonly eventRecord: EventRecordUpkeep;

  constructor(
    private readonly ctx: Ctx,
    private readonly intervalMs = 1000,
  ) {
    this.lease = new Lease(ctx.redis, ctx.keys.schedulerLease, Math.max(5000, intervalMs * 5));
    this.rollups = new DailyRollups(ctx);
    this.eventRecord = new EventRecordUpkeep(ctx, this.rollups);
    this.poller = new Poller({
      everyMs: intervalMs,
      round: async () => {
        if (await this.tickOnce()) schedulerRuns.labels('ok').inc();
      },
      failed: (err) => {
        schedulerRuns.labels('failed').inc();
        this.ctx.log.warn('scheduler run failed', { err: err.message });
      },
    });
  }

  start(): void {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
    await this.lease.release();
  }

  /** One round if we hold (or win) the lease; whether it ran. */
  async tickOnce(): Promise<boolean> {
    if (!(await this.lease.acquire())) return false;
    await this.runOnce();
    return true;
  }

  /**
   * Every job, in the order of a pass: a deployment's job listed before the
   * tenants' jobs runs before them, one listed after runs after them.
   */
  private readonly jobs: readonly Job[] = [
    // The events table's partitions: made ahead, dropped past EVENT_RETENTION_DAYS (checked on its own interval).
    { name: 'event-partitions', scope: 'deployment', soft: 'event partition upkeep failed', run: () => this.eventRecord.run() },
    { name: 'leaderboard-runs', scope: 'tenant', run: (t) => this.leaderboards(t) },
    { name: 'finalize-leagues', scope: 'tenant', run: (t) => finalizeLeagues(this.ctx, t) },
    { name: 'announce-runs', scope: 'tenant', run: (t) => announceRuns(this.ctx, t, this.ctx.clock.now()) },
    { name: 'announce-boosts', scope: 'tenant', run: (t) => announceBoosts(this.ctx, t, this.ctx.clock.now()) },
    { name: 'review-achievements', scope: 'tenant', run: (t) => this.reviewAchievements(t) },
    { name: 'settle-streaks', scope: 'tenant', run: (t) => this.settleStreaks(t) },
    { name: 'time-triggers', scope: 'tenant', run: (t) => this.timeTriggers(t) },
    // Only makes the analytics faster (a request sums what is missing itself): never holds up the next tenant's jobs.
    { name: 'daily-rollups', scope: 'tenant', soft: 'daily rollup failed', run: (t) => this.rollups.catchUp(t) },
    { name: 'retention', scope: 'tenant', run: (t) => retentionPass(this.ctx, t) },
    { name: 'wrapped-percentiles', scope: 'tenant', every: PERCENTILES_REFRESH_MS, run: (t) => this.percentiles(t) },
    { name: 'audit-retention', scope: 'deployment', every: 3_600_000, run: () => this.pruneAudit() },
  ];

  /** Do everything that is due now, lease or not (tests call this directly); the users visited. */
  async runOnce(): Promise<number> {
    let visited = 0;
    const tenantJobs = this.jobs.filter((j) => j.scope === 'tenant');
    let tenantsDone = false;
    for (const job of this.jobs) {
      if (job.scope === 'deployment') {
        await this.runJob(job, '', () => job.run());
      } else if (!tenantsDone) {
        tenantsDone = true;
        for (const t of await this.ctx.tenants.all()) {
          for (const j of tenantJobs) visited += (await this.runJob(j, t.id, () => j.run(t))) ?? 0;
        }
      }
    }
    return visited;
  }

  /** One job, when due; a soft job's failure is logged instead of thrown. */
  private async runJob(job: Job, tenantId: string, run: () => Promise<number | void>): Promise<number | void> {
    const now = this.ctx.clock.now();
    const key = tenantId ? `${job.name}:${tenantId}` : job.name;
    const last = this.ranAt.get(key);
    if (job.every !== undefined && last !== undefined && now >= last && now - last < job.every) return;
    try {
      const out = await run();
      if (job.every !== undefined) this.ranAt.set(key, now);
      return out;
    } catch (err) {
      if (!job.soft) throw err;
      this.ctx.log.warn(job.soft, { job: job.name, ...(tenantId ? { tenant: tenantId } : {}), err: (err as Error).message });
    }
  }

  /** The audit log's months past AUDIT_RETENTION_DAYS are dropped. */
  private async pruneAudit(): Promise<void> {
    const dropped = await this.ctx.audit.prune();
    if (dropped.length) this.ctx.log.info('audit log months dropped past retention', { partitions: dropped });
  }

  /** Wrapped's percentile table: weeks and months on the job's interval, the year once a day (see store/wrapped-percentiles.ts). */
  private async percentiles(t: Tenant): Promise<void> {
    const now = this.ctx.clock.now();
    const yearAt = this.percentilesYearAt.get(t.id);
    const withYear = yearAt === undefined || Math.floor(now / 86_400_000) !== Math.floor(yearAt / 86_400_000);
    await refreshPercentiles(this.ctx.db, t.id, now, withYear ? ['w', 'm', 'y'] : ['w', 'm']);
    if (withYear) this.percentilesYearAt.set(t.id, now);
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
    await this.forEachUser(tk, (id) => this.userScript(t, id, now, 'user_review', REVIEW));
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
      // Finalize ended runs, in order (a bounded number per pass); a perpetual board has one run.
      for (let r = b.finalized_run + 1, n = 0; n < 100 && (b.run_unit !== null || r === 0); r++, n++) {
        if (!runMayBeFinal(shape, r, now) || (b.end !== null && runDates(shape, r).start > b.end)) break;
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
      for (let i = 0; i < flat.length; i += 2) rows.push({ g: key.slice(prefix.length), u: flat[i]!, rk: i / 2 + 1, v: scoreValue(flat[i + 1]!) });
    }
    const now = ctx.clock.now();
    const finished = await finishedEvents(ctx, t, slot, run, rows, now);
    // The run's records still in the stream first: flushed after the DELETE below, they would
    // put its entries back in Postgres, and a rebuild of Redis would bring a finished run back.
    await ctx.durable.all(t);
    await tx(ctx.db, async (c) => {
      await enqueue(c, t.id, finished, now);
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
  private async userScript(t: Tenant, id: string, now: number, script: 'user_review' | 'time_grant', program: string | null): Promise<void> {
    const { ctx } = this;
    const own = await ctx.redis.hget(ctx.keys.tenant(t.slot).user(id), ZONE_FIELD);
    const tk = ctx.keys.tenant(t.slot);
    await withConfig(ctx.configs, t, async (cfg) => {
      const date = localDate(now, zoneOr(own, cfg.defaultZone));
      const r = await userJobCall(ctx.engine, tk, script, {
        ver: cfg.ver, now, userId: id, program: cfg.program(program), userBoosts: userBoostsArg(cfg.userBoosts.get(id)), date, opId: randomUUID(),
      });
      return r.code === 'STALE' ? STALE : undefined;
    });
  }

  /**
   * Streaks are settled lazily (on the user's next event or read), which is
   * exact but silent for a user who never comes back. While an endpoint wants
   * to hear about lapses, every user's streak is settled once an hour, so
   * streak.lost and freeze events go out within about an hour of the user's
   * midnight. A sweep visits a few thousand users per pass, in id order, and
   * resumes where it stopped. It walks the tenant's rows in Postgres, not
   * Redis's whole keyspace (which holds every tenant's keys): a user created
   * in the last moments, not flushed yet, has no streak to lose anyway.
   */
  private async settleStreaks(t: Tenant): Promise<void> {
    const { ctx } = this;
    const hour = Math.floor(ctx.clock.now() / 3_600_000);
    let sweep = this.sweeps.get(t.id);
    if (!sweep || (sweep.after === null && sweep.hour < hour)) {
      const cfg = await ctx.configs.get(t);
      const types = cfg.streak?.enabled ? await subscribedTypes(ctx.db, t.id) : new Set<string>();
      sweep = { hour, after: SETTLE_EVENTS.some((e) => types.has(e)) ? '' : null };
      this.sweeps.set(t.id, sweep);
    }
    if (sweep.after === null) return;
    const { rows } = await ctx.db.query<{ id: string }>({
      name: 'streak-sweep-users',
      text: 'SELECT id FROM users WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      values: [t.id, sweep.after, SWEEP_USERS],
    });
    for (const { id } of rows) await streakCall(ctx, t, id, 'streak_read');
    sweep.after = rows.length === SWEEP_USERS ? rows[rows.length - 1]!.id : null;
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
        await this.userScript(t, id, now, 'time_grant', null);
        visited++;
      }
      if (ids.length < BATCH) return visited;
    }
  }
}
