import type { Pool } from 'pg';
import { FREQ_CODE, periodDates, StreakConfig, StreakState } from '../domain/streaks';
import type { Tenant } from './tenants';

interface PeriodRow { period: number; length: number; used_freeze: boolean; used_pause: boolean }
interface PauseRow { id: string; start: string; end: string }

/**
 * A user's streak history and pauses, in one query (one round trip through
 * the pool, which bounds how many streak reads Postgres serves).
 * `streakHistory`: the last `count` periods through the current one `n`:
 * settled and extended periods as recorded (durably, by the flusher); the
 * current period shows the live length while the streak is alive; any other
 * period is 0. `pauses`: those covering `today` or later.
 */
export async function historyAndPauses(
  db: Pool, tenant: Tenant, userId: string, cfg: StreakConfig, st: StreakState, n: number, count: number, today: string,
) {
  const f = FREQ_CODE[cfg.frequency];
  const { rows } = await db.query<{ periods: PeriodRow[]; pauses: PauseRow[] }>(
    `SELECT
       (SELECT coalesce(json_agg(json_build_object('period', period, 'length', length, 'used_freeze', used_freeze, 'used_pause', used_pause)), '[]')
        FROM streak_periods WHERE tenant_id = $1 AND user_id = $2 AND frequency = $3 AND period BETWEEN $4 AND $5) AS periods,
       (SELECT coalesce(json_agg(json_build_object('id', id, 'start', to_char(start_date, 'YYYY-MM-DD'), 'end', to_char(end_date, 'YYYY-MM-DD')) ORDER BY start_date), '[]')
        FROM streak_pauses WHERE tenant_id = $1 AND user_id = $2 AND end_date >= $6::date) AS pauses`,
    [tenant.id, userId, f, n - count + 1, n, today],
  );
  const byPeriod = new Map(rows[0]!.periods.map((r) => [r.period, r]));
  const streakHistory = [];
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
    streakHistory.push(entry);
  }
  return { streakHistory, pauses: rows[0]!.pauses };
}
