import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import { tx } from '../store/db';
import { leagueCloseCall } from '../engine';
import { scoreValue } from '../domain/leaderboards';
import { derivedId } from '../domain/ids';
import {
  CLOSED_TICK, cohortId, LEAGUE_APPLIED_FIELD, LeagueConfig, OUTCOME, RUN_OPENED_PREFIX, RUN_PARAMS_FIELD, RUN_TICK_FIELD, runOpenedField, outcomeAt, parseParams, runAt, runDates, runParams, tierAt,
} from '../domain/leagues';
import type { WebhookEvent } from '../webhooks/events';
import { enqueue, subscribedTypes } from '../webhooks/outbox';

/** Runs one league finalizes per scheduler pass at most (a long downtime is caught up over a few passes). */
const RUNS_PER_PASS = 50;

/** One participant's result, as league_results holds it. */
interface Result { u: string; c: string; t: number; tk: string; rk: number; v: number; o: string; nt: number; ntk: string }

/**
 * Finalize the leagues' ended runs, exactly once (docs/leagues.md). Each run
 * goes through three steps, each safe to repeat after a crash at any point:
 *   1. durable: close the run in Redis (no event enters it any more), rank
 *      every cohort, and in one Postgres transaction store the results, the
 *      new tiers and the webhooks, guarded by the run's league_runs row (a
 *      second attempt finds it and writes nothing);
 *   2. applied: write the new tiers to Redis's settled tiers (from the
 *      stored results, so a repeat writes the same), then mark the run applied;
 *   3. freed: delete the run's Redis keys (its hash stays as a closed
 *      counter until two runs later) and its live entries in Postgres.
 */
export async function finalizeLeagues(ctx: Ctx, t: Tenant): Promise<void> {
  const cfg = await ctx.configs.get(t);
  if (!cfg.leaguesBySlot.size) return;
  const byId = new Map([...cfg.leaguesBySlot.values()].map((l) => [l.id, l]));
  const { rows: leagues } = await ctx.db.query<{ id: string; finalized_run: number }>('SELECT id, finalized_run FROM leagues WHERE tenant_id = $1', [t.id]);
  const { rows: pending } = await ctx.db.query<{ league_id: string; run: number; state: string }>(
    `SELECT league_id, run, state FROM league_runs WHERE tenant_id = $1 AND state <> 'freed' ORDER BY run`, [t.id],
  );
  const now = ctx.clock.now();
  for (const row of leagues) {
    const l = byId.get(row.id);
    if (!l) continue;
    for (const p of pending.filter((x) => x.league_id === l.id)) await laterSteps(ctx, t, l, p.run, p.state);
    const current = runAt(l, now);
    for (let r = row.finalized_run + 1; r < current && r <= row.finalized_run + RUNS_PER_PASS; r++) {
      const state = await makeDurable(ctx, t, l, r);
      if (state) await laterSteps(ctx, t, l, r, state);
    }
  }
}

/** Cohorts read per Redis round trip, and result rows written per statement, while finalizing a run. */
const SLICE_COHORTS = 200;
const SLICE_ROWS = 5_000;

/** Step 1; the run's state after it (null: nobody played it, nothing more to do). */
export async function makeDurable(ctx: Ctx, t: Tenant, l: LeagueConfig, r: number): Promise<string | null> {
  const tk = ctx.keys.tenant(t.slot);
  await leagueCloseCall(ctx.engine, tk, { slot: l.slot, run: r });
  const run = await ctx.redis.hgetall(tk.leagueRun(l.slot, r));
  const cf = run[RUN_PARAMS_FIELD] ? parseParams(run[RUN_PARAMS_FIELD]) : null;
  const params = runParams(l, r);
  // Every cohort of the run at once (a run of 100,000 participants has about 3,400).
  const cohorts: { tier: number; no: number }[] = [];
  if (cf) for (let i = 0; i < cf.t.length; i++) for (let no = 1; no <= Number(run[runOpenedField(i)] ?? 0); no++) cohorts.push({ tier: i, no });
  // Read in slices, so the event loop (and Redis) serves events between them.
  const ranked: [Error | null, unknown][] = [];
  for (let i = 0; i < cohorts.length; i += SLICE_COHORTS) {
    const pipe = ctx.redis.pipeline();
    for (const c of cohorts.slice(i, i + SLICE_COHORTS)) pipe.zrevrange(tk.cohort(l.slot, r, c.tier, c.no), 0, -1, 'WITHSCORES');
    ranked.push(...((await pipe.exec()) ?? []));
  }
  const results: Result[] = [];
  let used = 0;
  cohorts.forEach((c, i) => {
    const flat = (ranked[i]?.[1] as string[] | undefined) ?? [];
    const n = flat.length / 2;
    if (n) used++;
    for (let k = 0; k < n; k++) {
      const { zone, next: nt } = outcomeAt(cf!, c.tier, k + 1, n);
      results.push({
        u: flat[2 * k]!, c: cohortId(r, c.tier, c.no), t: c.tier, tk: tierAt(params, c.tier).key, rk: k + 1,
        v: scoreValue(flat[2 * k + 1]!), o: OUTCOME[zone], nt, ntk: tierAt(params, nt).key,
      });
    }
  });
  const dates = runDates(l, r);
  const now = ctx.clock.now();
  const promoted = results.filter((x) => x.o === 'promoted').length;
  const relegated = results.filter((x) => x.o === 'relegated').length;
  const events: WebhookEvent[] = [];
  if (results.length) {
    const wanted = await subscribedTypes(ctx.db, t.id);
    const league = { key: l.key, name: l.name };
    for (const x of results) {
      const type = x.o === 'promoted' ? 'league.promoted' : x.o === 'relegated' ? 'league.relegated' : null;
      if (!type || !wanted.has(type)) continue;
      events.push({
        id: derivedId('webhook', type, l.id, String(r), x.u), type, due: now,
        payload: JSON.stringify({ type, league, user: { id: x.u }, run: dates, fromTier: x.tk, toTier: x.ntk, rank: x.rk, value: x.v }),
      });
    }
    if (wanted.has('league.finished')) {
      events.push({
        id: derivedId('webhook', 'league.finished', l.id, String(r)), type: 'league.finished', due: now,
        payload: JSON.stringify({ type: 'league.finished', league, run: dates, cohorts: used, participants: results.length, promoted, relegated }),
      });
    }
  }
  return tx(ctx.db, async (c) => {
    await c.query('UPDATE leagues SET finalized_run = greatest(finalized_run, $3) WHERE tenant_id = $1 AND id = $2', [t.id, l.id, r]);
    if (!results.length) return null;
    const first = await c.query(
      `INSERT INTO league_runs (tenant_id, league_id, run, start_date, end_date, cohorts, participants, promoted, relegated, state, finalized_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'durable', $10) ON CONFLICT DO NOTHING`,
      [t.id, l.id, r, dates.start, dates.end, used, results.length, promoted, relegated, new Date(now)],
    );
    // Another process stored this run first: its results and webhooks stand.
    if (!first.rowCount) return 'durable';
    // In slices of rows: one statement of a whole run's JSON holds the event loop for tens of milliseconds.
    for (let i = 0; i < results.length; i += SLICE_ROWS) {
      const json = JSON.stringify(results.slice(i, i + SLICE_ROWS));
      await c.query(
        `INSERT INTO league_results (tenant_id, league_id, run, user_id, cohort, tier, tier_key, rank, value, outcome, new_tier, new_tier_key)
         SELECT $1, $2, $3, x.u, x.c, x.t, x.tk, x.rk, x.v, x.o, x.nt, x.ntk
         FROM jsonb_to_recordset($4::jsonb) AS x(u text, c text, t integer, tk text, rk integer, v bigint, o text, nt integer, ntk text)
         ON CONFLICT DO NOTHING`,
        [t.id, l.id, r, json],
      );
      await c.query(
        `INSERT INTO league_tiers (tenant_id, league_id, user_id, tier)
         SELECT $1, $2, x.u, x.nt FROM jsonb_to_recordset($3::jsonb) AS x(u text, nt integer) ORDER BY x.u
         ON CONFLICT (tenant_id, league_id, user_id) DO UPDATE SET tier = excluded.tier`,
        [t.id, l.id, json],
      );
    }
    await enqueue(c, t.id, events, now);
    return 'durable';
  });
}

/** Steps 2 and 3 from `state` on. */
export async function laterSteps(ctx: Ctx, t: Tenant, l: LeagueConfig, r: number, state: string): Promise<void> {
  const tk = ctx.keys.tenant(t.slot);
  if (state === 'durable') {
    const { rows } = await ctx.db.query<{ user_id: string; tier: number; new_tier: number }>(
      'SELECT user_id, tier, new_tier FROM league_results WHERE tenant_id = $1 AND league_id = $2 AND run = $3', [t.id, l.id, r],
    );
    const moved = rows.filter((x) => x.new_tier !== x.tier);
    const tiers = tk.leagueTiers(l.slot);
    for (let i = 0; i < moved.length; i += 1000) {
      const pipe = ctx.redis.pipeline();
      for (const x of moved.slice(i, i + 1000)) {
        if (x.new_tier === 0) pipe.hdel(tiers, x.user_id);
        else pipe.hset(tiers, x.user_id, String(x.new_tier));
      }
      await pipe.exec();
    }
    // Runs are applied in order, so the mark only moves forward.
    await ctx.redis.hset(tk.league(l.slot), LEAGUE_APPLIED_FIELD, String(r));
    await ctx.db.query(`UPDATE league_runs SET state = 'applied' WHERE tenant_id = $1 AND league_id = $2 AND run = $3`, [t.id, l.id, r]);
    state = 'applied';
  }
  if (state === 'applied') {
    const runKey = tk.leagueRun(l.slot, r);
    const run = await ctx.redis.hgetall(runKey);
    const keys: string[] = [];
    for (const f in run) {
      const tier = f.startsWith(RUN_OPENED_PREFIX) ? Number(f.slice(RUN_OPENED_PREFIX.length)) : NaN;
      if (Number.isInteger(tier)) for (let no = 1; no <= Number(run[f]); no++) keys.push(tk.cohort(l.slot, r, tier, no));
    }
    for (let i = 0; i < keys.length; i += 500) await ctx.redis.unlink(...keys.slice(i, i + 500));
    // The run's hash stays as a closed counter alone, so an event computed just
    // before the boundary and run after this cannot open it again; the one of
    // two runs back (no event can be that late) goes.
    const rest = Object.keys(run).filter((f) => f !== RUN_TICK_FIELD);
    if (rest.length) await ctx.redis.hdel(runKey, ...rest);
    await ctx.redis.hset(runKey, RUN_TICK_FIELD, CLOSED_TICK);
    await ctx.redis.unlink(tk.leagueRun(l.slot, r - 2));
    await tx(ctx.db, async (c) => {
      await c.query('DELETE FROM league_entries WHERE tenant_id = $1 AND league_id = $2 AND run = $3', [t.id, l.id, r]);
      await c.query(`UPDATE league_runs SET state = 'freed' WHERE tenant_id = $1 AND league_id = $2 AND run = $3`, [t.id, l.id, r]);
    });
  }
}
