import type { RedisClient } from '../redis/client';
import { purgeKeys } from '../redis/purge';
import type { TenantKeys } from '../redis/keys';
import { runOpenedField } from '../domain/leagues';

/**
 * The cohorts opened so far in each tier of league runs (plain reads of the
 * runs' hashes, field `n<tier>` as lua/lib/50-leagues.lua keeps it), in one
 * round trip: per run asked, one count per tier (0 where none is open).
 */
export async function openCohorts(redis: RedisClient, tk: TenantKeys, runs: { slot: number; run: number; tiers: number }[]): Promise<number[][]> {
  if (runs.length === 0) return [];
  const pipe = redis.pipeline();
  for (const r of runs) pipe.hmget(tk.leagueRun(r.slot, r.run), ...Array.from({ length: r.tiers }, (_, i) => runOpenedField(i)));
  const res = (await pipe.exec()) ?? [];
  return runs.map((_, i) => ((res[i]?.[1] as (string | null)[] | undefined) ?? []).map((n) => Number(n ?? 0)));
}

/** Every Redis key of a deleted league: its base hash, settled tiers, runs and cohorts. */
export async function freeLeagueKeys(redis: RedisClient, tk: TenantKeys, slot: number): Promise<void> {
  await redis.unlink(tk.league(slot));
  // The ':' keeps slot 1 from matching slot 10's keys.
  await purgeKeys(redis, `${tk.league(slot)}:*`);
}
