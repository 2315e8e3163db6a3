import type { Ctx } from '../context';
import { userNames } from '../engine';
import { FREQ_CODE, StreakConfig } from '../domain/streaks';
import { latestLengths, longestLengths } from '../store/streak-periods';
import type { Tenant } from '../store/tenants';
import type { StreakRanking } from '../wire/app';
import { streakCall } from './streak-calls';

/**
 * The top `limit` users by current (`active`) or longest-ever streak, with
 * their names. Ranked from the recorded periods: everything acknowledged is
 * written there first.
 */
export async function streakRankings(ctx: Ctx, tenant: Tenant, cfg: StreakConfig, type: 'active' | 'longest', limit: number): Promise<StreakRanking[]> {
  await ctx.durable.all(tenant);
  const ranked = type === 'longest'
    ? (await longestLengths(ctx.db, tenant.id, FREQ_CODE[cfg.frequency], limit)).map((r) => ({ userId: r.userId, streakLength: r.length }))
    : await active(ctx, tenant, cfg, limit);
  const names = await userNames(ctx.redis, ctx.keys.tenant(tenant.slot), ranked.map((r) => r.userId));
  return ranked.map((r, i) => {
    const name = names[i];
    return typeof name === 'string' ? { userId: r.userId, name, streakLength: r.streakLength } : r;
  });
}

/**
 * Users by current streak length. A user's latest recorded period holds the
 * length the streak last reached, an upper bound of its length now (a
 * missed period is settled only when the user is next seen). Candidates
 * are taken by that bound and settled (as a read of their streak would) until
 * the next bound cannot beat the ones found.
 */
async function active(ctx: Ctx, tenant: Tenant, cfg: StreakConfig, limit: number): Promise<StreakRanking[]> {
  const found: StreakRanking[] = [];
  for (const row of await latestLengths(ctx.db, tenant.id, FREQ_CODE[cfg.frequency])) {
    // Full, and this bound cannot reach the last place (an equal length may still win on its id).
    if (found.length >= limit && row.length < found[limit - 1]!.streakLength) break;
    const r = await streakCall(ctx, tenant, row.userId, 'streak_read');
    const len = r.kind === 'OK' ? (JSON.parse(r.raw) as { len: number }).len : 0;
    if (len > 0) {
      found.push({ userId: row.userId, streakLength: len });
      found.sort((a, b) => b.streakLength - a.streakLength || (a.userId < b.userId ? -1 : 1));
      found.length = Math.min(found.length, limit);
    }
  }
  return found.slice(0, limit);
}
