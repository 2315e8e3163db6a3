import type { Ctx } from '../context';
import { firstZone, inUserZone, streakCall as engineStreakCall, STALE, withConfig, zoneKey } from '../engine';
import { localDate } from '../domain/time';
import { streakArg } from '../domain/streaks';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';

/** `unflushed`: the user's last change id while Postgres may lack it (streak_read), else ''. */
export type StreakReply = { kind: 'NOTFOUND' | 'FULL' | 'NOTHING' | 'DISABLED' } | { kind: 'OK'; raw: string; date: string; cfg: TenantConfig; unflushed: string };

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
    const settled = await inUserZone(ctx.zones, zones, firstZone(ctx.zones, zones, undefined), (zone) => {
      const now = ctx.clock.now();
      date = localDate(now, zone);
      return engineStreakCall(ctx.engine, tk, script, {
        ver: cfg.ver, now, userId, program: cfg.program(null), streak: streakArg(cfg.streak!, date), op, pauses, zone,
      });
    });
    if (!settled) return { kind: 'NOTFOUND' as const };
    const r = settled.reply;
    if (r.code === 'STALE') return STALE;
    if (r.code === 'OK') return { kind: 'OK' as const, raw: r.raw, date, cfg, unflushed: r.unflushed };
    return { kind: r.code };
  });
}
