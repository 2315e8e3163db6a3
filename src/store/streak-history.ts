import type { Pool } from 'pg';
import { FREQ_CODE, PauseJson, PeriodRow, StreakConfig } from '../domain/streaks';
import type { Tenant } from './tenants';

/**
 * A user's recorded streak periods `from`..`to` and the pauses covering
 * `today` or later, in one query (one round trip through the pool). Read
 * only when the user hash's recent history cannot answer (see the streak
 * read and reminder in services/streak-calls.ts historyAndPauses).
 */
export async function periodsAndPauses(
  db: Pool, tenant: Tenant, userId: string, cfg: StreakConfig, from: number, to: number, today: string,
): Promise<{ periods: Map<number, PeriodRow>; pauses: PauseJson[] }> {
  const { rows } = await db.query<{ periods: PeriodRow[]; pauses: PauseJson[] }>(
    `SELECT
       (SELECT coalesce(json_agg(json_build_object('period', period, 'length', length, 'used_freeze', used_freeze, 'used_pause', used_pause)), '[]')
        FROM streak_periods WHERE tenant_id = $1 AND user_id = $2 AND frequency = $3 AND period BETWEEN $4 AND $5) AS periods,
       (SELECT coalesce(json_agg(json_build_object('id', id, 'start', to_char(start_date, 'YYYY-MM-DD'), 'end', to_char(end_date, 'YYYY-MM-DD')) ORDER BY start_date), '[]')
        FROM streak_pauses WHERE tenant_id = $1 AND user_id = $2 AND end_date >= $6::date) AS pauses`,
    [tenant.id, userId, FREQ_CODE[cfg.frequency], from, to, today],
  );
  return { periods: new Map(rows[0]!.periods.map((r) => [r.period, r])), pauses: rows[0]!.pauses };
}
