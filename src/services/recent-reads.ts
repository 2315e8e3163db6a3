import { awardId, boostJson, PointsSystemConfig, triggerAppJson, triggerNames, triggerVersion } from '../domain/points';
import { recentAwards, recentBoardChanges } from '../domain/recent-history';
import type { TenantConfig } from '../store/tenant-config';

/*
 * The reads a client makes right after an event, answered from the user's
 * recent history in Redis (src/domain/recent-history.ts) in the shapes the
 * Postgres queries give: null whenever Redis cannot give exactly what
 * Postgres would, and the caller then reads Postgres.
 */

/**
 * A user's `n` newest awards of system `s`, as GET /v1/users/{id}/points/{key}
 * shows them. Null when the list does not reach that far, or an award's
 * trigger has been edited, renamed or deleted since (Postgres keeps the
 * trigger as it was), or a boost tag is ambiguous.
 */
export function recentAwardsJson(cfg: TenantConfig, s: PointsSystemConfig, raw: string, tracked: boolean, n: number) {
  const kept = recentAwards(raw, tracked, n);
  if (!kept) return null;
  const names = triggerNames(cfg);
  const out = [];
  for (const a of kept) {
    const t = s.triggers.find((x) => x.slot === a.triggerSlot);
    if (!t || !a.versionTag || !triggerVersion(t, names).startsWith(a.versionTag)) return null;
    const boosts = [];
    for (const tag of a.boostTags) {
      const found = s.boosts.filter((b) => b.id.startsWith(tag));
      if (found.length > 1) return null;
      // A boost deleted since: Postgres's read leaves it out too.
      if (found.length === 1) boosts.push(boostJson(found[0]!, a.date!));
    }
    out.push({
      id: awardId(a.opId, t.id, a.index),
      awarded: a.awarded,
      date: new Date(a.at).toISOString(),
      total: a.total,
      trigger: triggerAppJson(t, names),
      boosts,
    });
  }
  return out;
}

/** A user's `n` newest changes on a board's run, as GET /v1/users/{id}/leaderboards/{key} shows them; null when the list cannot answer. */
export function recentBoardJson(raw: string, tracked: boolean, run: number, n: number) {
  return recentBoardChanges(raw, tracked, run, n)?.map((c) => ({
    date: c.date,
    timestamp: new Date(c.at).toISOString(),
    previousRank: c.previousRank,
    rank: c.rank,
    previousValue: c.previousValue,
    value: c.value,
  })) ?? null;
}
