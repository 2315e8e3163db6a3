import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';

/** lua/league_close.lua: a run takes no more events. */
export async function leagueCloseCall(engine: Engine, tk: TenantKeys, a: { slot: number; run: number }): Promise<void> {
  await engine.fcall('league_close', [tk.leagueRun(a.slot, a.run)], []);
}

/** lua/league_leave.lua: an erased user leaves their cohort (if any) and the settled tiers. */
export async function leagueLeaveCall(
  engine: Engine, tk: TenantKeys, a: { slot: number; userId: string; place: { run: number; tier: number; no: number } | null },
): Promise<void> {
  const p = a.place;
  const tiers = tk.leagueTiers(a.slot);
  // With no cohort, the tiers hash stands in for it (the script skips a cohort named like it).
  const cohort = p ? tk.cohort(a.slot, p.run, p.tier, p.no) : tiers;
  const run = p ? tk.leagueRun(a.slot, p.run) : tiers;
  await engine.fcall('league_leave', [cohort, run, tiers], [a.userId, p?.tier ?? 0, p?.no ?? 0]);
}
