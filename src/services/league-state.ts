import type { Ctx } from '../context';
import type { TenantKeys } from '../redis/keys';
import { userNames } from '../engine';
import { scoreValue } from '../domain/leaderboards';
import { LEAGUE_APPLIED_FIELD, LeagueConfig, outcomeAt, RUN_PARAMS_FIELD, parseParams, RunParams, type StoredParams } from '../domain/leagues';

export interface CohortRanking {
  rank: number;
  userId: string;
  userName: string | null;
  value: number;
}

/** A live cohort's rankings from Redis, best first, with names (empty when the cohort is not there). */
export async function liveCohort(ctx: Ctx, tk: TenantKeys, key: string): Promise<CohortRanking[]> {
  const flat = await ctx.redis.zrevrange(key, 0, -1, 'WITHSCORES');
  const ids: string[] = [];
  for (let i = 0; i < flat.length; i += 2) ids.push(flat[i]!);
  const names = await userNames(ctx.redis, tk, ids);
  return ids.map((userId, i) => ({ rank: i + 1, userId, userName: names[i] ?? null, value: scoreValue(flat[2 * i + 1]!) }));
}

/** The run parameters a run was played with, as the script stored them in the run's hash (null when not there). */
export async function storedParams(ctx: Ctx, tk: TenantKeys, slot: number, run: number): Promise<StoredParams | null> {
  const cf = await ctx.redis.hget(tk.leagueRun(slot, run), RUN_PARAMS_FIELD);
  return cf ? parseParams(cf) : null;
}

/**
 * The tier a user would start the run in progress with (lg_tier in
 * lua/lib/50-leagues.lua, which a read must agree with): the outcome of
 * their last run while it is not applied to the settled tiers yet, else the
 * settled tier. Clamped to the run's tiers.
 */
export async function tierNow(
  ctx: Ctx, tk: TenantKeys, l: LeagueConfig, p: RunParams, userId: string, place: { run: number; tier: number; no: number } | null,
): Promise<number> {
  let tier: number;
  const done = Number((await ctx.redis.hget(tk.league(l.slot), LEAGUE_APPLIED_FIELD)) ?? -1);
  if (place && place.run > done) {
    tier = place.tier;
    const ck = tk.cohort(l.slot, place.run, place.tier, place.no);
    const [cf, r, n] = await Promise.all([storedParams(ctx, tk, l.slot, place.run), ctx.redis.zrevrank(ck, userId), ctx.redis.zcard(ck)]);
    if (cf?.t[place.tier] && r !== null) tier = outcomeAt(cf, place.tier, r + 1, n).next;
  } else {
    tier = Number((await ctx.redis.hget(tk.leagueTiers(l.slot), userId)) ?? 0);
  }
  return Math.max(0, Math.min(p.tiers.length - 1, tier));
}
