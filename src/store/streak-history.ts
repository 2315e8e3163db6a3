import type { Pool } from 'pg';
import { FREQ_CODE, periodDates, StreakConfig, StreakState } from '../domain/streaks';
import type { Tenant } from './tenants';

/**
 * The last `count` periods through the current one: settled and extended
 * periods as recorded (durably, by the flusher); the current period shows the
 * live length while the streak is alive; any other period is 0.
 */
export async function history(db: Pool, tenant: Tenant, userId: string, cfg: StreakConfig, st: StreakState, n: number, count: number) {
  const f = FREQ_CODE[cfg.frequency];
  const { rows } = await db.query<{ period: number; length: number; used_freeze: boolean; used_pause: boolean }>(
    `SELECT period, length, used_freeze, used_pause FROM streak_periods
     WHERE tenant_id = $1 AND user_id = $2 AND frequency = $3 AND period BETWEEN $4 AND $5`,
    [tenant.id, userId, f, n - count + 1, n],
  );
  const byPeriod = new Map(rows.map((r) => [r.period, r]));
  const out = [];
  for (let p = n - count + 1; p <= n; p++) {
    const row = byPeriod.get(p);
    const { start, end } = periodDates(f, p, cfg.weekStart);
    const entry: Record<string, unknown> = {
      periodStart: start,
      periodEnd: end,
      length: row ? row.length : p === n ? st.len : 0,
      usedPause: row?.used_pause ?? false,
    };
    if (cfg.maxFreezes > 0) entry.usedFreeze = row?.used_freeze ?? false;
    out.push(entry);
  }
  return out;
}

/** Pauses covering today or later. */
export async function pauses(db: Pool, tenant: Tenant, userId: string, today: string) {
  const { rows } = await db.query<{ id: string; start: string; end: string }>(
    `SELECT id, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS "end" FROM streak_pauses
     WHERE tenant_id = $1 AND user_id = $2 AND end_date >= $3::date ORDER BY start_date`,
    [tenant.id, userId, today],
  );
  return rows;
}
