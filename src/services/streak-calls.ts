import type { Ctx } from '../context';
import { firstZone, inUserZone, streakCall as engineStreakCall, STALE, withConfig, zoneKey } from '../engine';
import { dayNumber, localDate } from '../domain/time';
import { pausesFrom, recentPeriods, streakArg, StreakConfig, streakHistory, StreakState } from '../domain/streaks';
import { periodsAndPauses } from '../store/streak-history';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';

/** What the user hash keeps of a streak's history (streak_read's reply, or the hash's fields). */
export interface KeptHistory {
  /** The active frequency's recent period records ('' when none). */
  recent: string;
  /** The user's pauses ('' when none). */
  pauses: string;
  /** The user's last change id while Postgres may lack it, else ''. */
  unflushed: string;
}

export type StreakReply = { kind: 'NOTFOUND' | 'FULL' | 'NOTHING' | 'DISABLED' } | ({ kind: 'OK'; raw: string; date: string; cfg: TenantConfig } & KeptHistory);

/**
 * Run a streak script for one user, in the user's own zone (a wrong first
 * guess is corrected by the script), with a current config.
 */
export async function streakCall(
  ctx: Ctx,
  tenant: Tenant,
  userId: string,
  script: 'streak_read' | 'streak_admin',
  op = '',
  pauses = '[]',
): Promise<StreakReply> {
  const tk = ctx.keys.tenant(tenant.slot);
  const zones = zoneKey(tenant.slot, userId);
  return withConfig(ctx.configs, tenant, async (cfg) => {
    if (!cfg.streak?.enabled) return { kind: 'DISABLED' as const };
    let date = '';
    const settled = await inUserZone(ctx.zones, zones, firstZone(ctx.zones, zones, undefined, cfg.defaultZone), (zone) => {
      const now = ctx.clock.now();
      date = localDate(now, zone);
      return engineStreakCall(ctx.engine, tk, script, {
        ver: cfg.ver, now, userId, program: cfg.program(null), streak: streakArg(cfg.streak!, date), op, pauses, zone,
      });
    });
    if (!settled) return { kind: 'NOTFOUND' as const };
    const r = settled.reply;
    if (r.code === 'STALE') return STALE;
    if (r.code === 'OK') return { kind: 'OK' as const, raw: r.raw, date, cfg, unflushed: r.unflushed, recent: r.recent, pauses: r.pauses };
    return { kind: r.code };
  });
}

/**
 * A streak's history (the last `count` periods through the current one `n`)
 * and the pauses covering `today` or later: from the user hash's copies when
 * they cover the window (the default one does, once the user has a record),
 * else from Postgres, after writing the user's unflushed records.
 */
export async function historyAndPauses(
  ctx: Ctx, tenant: Tenant, userId: string, cfg: StreakConfig, st: StreakState, n: number, count: number, today: string, kept: KeptHistory,
) {
  const recorded = recentPeriods(kept.recent, n - count + 1);
  if (recorded) return { streakHistory: streakHistory(cfg, st, n, count, recorded), pauses: pausesFrom(kept.pauses, dayNumber(today)!) };
  if (kept.unflushed) await ctx.durable.through(tenant, userId, kept.unflushed);
  const stored = await periodsAndPauses(ctx.db, tenant, userId, cfg, n - count + 1, n, today);
  return { streakHistory: streakHistory(cfg, st, n, count, stored.periods), pauses: stored.pauses };
}

/** What an admin is told when a streak script refuses (StreakReply's kinds other than OK). */
export function streakProblem(kind: string): string {
  switch (kind) {
    case 'NOTFOUND':
      return 'User not found';
    case 'FULL':
      return 'The user already has the maximum number of freezes';
    case 'NOTHING':
      return 'The user has no lost streak to restore';
    case 'DISABLED':
      return 'Streaks are not enabled';
    default:
      return kind;
  }
}
