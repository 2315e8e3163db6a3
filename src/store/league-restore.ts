import type { Pool } from 'pg';
import type { RedisClient } from '../redis/client';
import type { TenantKeys } from '../redis/keys';
import type { TenantConfig } from './tenant-config';
import type { Tenant } from './tenants';
import { scoreTick } from '../domain/leaderboards';
import { LEAGUE_APPLIED_FIELD, paramsArg, RUN_PARAMS_FIELD, RUN_TICK_FIELD, runOpenedField, runParams } from '../domain/leagues';

/**
 * Rebuild the leagues' Redis state from Postgres (docs/leagues.md): each
 * league's applied mark (its finalized run: every durable result is in
 * league_tiers), the settled tiers, and the cohorts of runs
 * not finalized yet with their packed scores, counts and tie counters.
 * Places in the user hashes (G<slot>) come back with the hashes themselves.
 */
export async function restoreLeagues(db: Pool, redis: RedisClient, tk: TenantKeys, t: Tenant, cfg: TenantConfig): Promise<void> {
  for (const l of cfg.leaguesBySlot.values()) {
    const { rows } = await db.query<{ finalized_run: number }>('SELECT finalized_run FROM leagues WHERE tenant_id = $1 AND id = $2', [t.id, l.id]);
    const finalized = rows[0]?.finalized_run ?? -1;
    await redis.hset(tk.league(l.slot), LEAGUE_APPLIED_FIELD, String(finalized));
    const tiers = await db.query<{ user_id: string; tier: number }>(
      'SELECT user_id, tier FROM league_tiers WHERE tenant_id = $1 AND league_id = $2 AND tier > 0', [t.id, l.id],
    );
    for (let i = 0; i < tiers.rows.length; i += 5000) {
      const flat = tiers.rows.slice(i, i + 5000).flatMap((r) => [r.user_id, String(r.tier)]);
      await redis.hset(tk.leagueTiers(l.slot), ...flat);
    }
    const entries = await db.query<{ run: number; user_id: string; tier: number; cohort: number; score: number }>(
      'SELECT run, user_id, tier, cohort, score FROM league_entries WHERE tenant_id = $1 AND league_id = $2 AND run > $3 AND score IS NOT NULL',
      [t.id, l.id, finalized],
    );
    const runs = new Map<number, Record<string, string>>();
    const pipe = redis.pipeline();
    for (const e of entries.rows) {
      pipe.zadd(tk.cohort(l.slot, e.run, e.tier, e.cohort), e.score, e.user_id);
      let h = runs.get(e.run);
      if (!h) runs.set(e.run, (h = { [RUN_TICK_FIELD]: '0', [RUN_PARAMS_FIELD]: paramsArg(runParams(l, e.run)) }));
      const opened = runOpenedField(e.tier);
      h[opened] = String(Math.max(Number(h[opened] ?? 0), e.cohort));
      h[RUN_TICK_FIELD] = String(Math.max(Number(h[RUN_TICK_FIELD]), scoreTick(e.score)));
    }
    for (const [run, h] of runs) pipe.hset(tk.leagueRun(l.slot, run), h);
    await pipe.exec();
  }
}
