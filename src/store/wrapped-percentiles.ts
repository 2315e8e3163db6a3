import type { Pool } from 'pg';
import { utcDate } from '../domain/time';

/**
 * Wrapped's percentiles, precomputed: for each tenant, period (Monday week,
 * month, year of the users' local dates) and metric or points system, the
 * 101 cut points (0th to 100th percentile) of the change of every user active
 * in it. A Wrapped read then places its user among them with one indexed row,
 * instead of ranking every user. The scheduler refreshes a tenant's weeks
 * and months at most every PERCENTILES_REFRESH_MS and its year once a day
 * (the year rereads a year of events): the first time everything, afterwards
 * only the periods that may still change (those not ended two days ago, when
 * every zone has left them). So a running week's or month's percentiles are
 * up to an hour old, the running year's up to a day; an ended period's are final.
 */
export const PERCENTILES_REFRESH_MS = 3_600_000;

const UNITS = { w: 'week', m: 'month', y: 'year' } as const;
export type PeriodUnit = keyof typeof UNITS;
const SOURCES = {
  m: { table: 'events', item: 'metric_id', value: 'value' },
  p: { table: 'awards', item: 'system_id', value: 'awarded' },
} as const;
const FRACTIONS = Array.from({ length: 101 }, (_, i) => i / 100);

export async function refreshPercentiles(db: Pool, tenantId: string, now: number, units: PeriodUnit[]): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM wrapped_percentiles WHERE tenant_id = $1 LIMIT 1', [tenantId]);
  const settled = utcDate(now - 2 * 86_400_000);
  for (const unit of units) {
    const trunc = UNITS[unit];
    for (const [kind, src] of Object.entries(SOURCES)) {
      await db.query(
        `INSERT INTO wrapped_percentiles (tenant_id, unit, period_start, kind, item_id, cuts, users, refreshed_at)
         SELECT $1, $2, ps, $3, item, percentile_disc($4::float8[]) WITHIN GROUP (ORDER BY v), count(*), to_timestamp($6 / 1000.0)
         FROM (SELECT date_trunc('${trunc}', local_date)::date AS ps, ${src.item} AS item, user_id, sum(${src.value})::float8 AS v
               FROM ${src.table} WHERE tenant_id = $1 AND local_date >= date_trunc('${trunc}', $5::date)
               GROUP BY 1, 2, 3) x
         GROUP BY ps, item
         ON CONFLICT (tenant_id, unit, period_start, kind, item_id)
         DO UPDATE SET cuts = excluded.cuts, users = excluded.users, refreshed_at = excluded.refreshed_at`,
        // The first refresh of a tenant covers all its history.
        [tenantId, unit, kind, FRACTIONS, rowCount ? settled : '1900-01-01', now],
      );
    }
  }
}

/** Cut points of the periods asked for: key `${unit}|${start}|${kind}|${item}`. */
export async function percentileCuts(db: Pool, tenantId: string, periods: { unit: PeriodUnit; start: string }[]): Promise<Map<string, number[]>> {
  const { rows } = await db.query<{ unit: string; ps: string; kind: string; item_id: string; cuts: number[] }>(
    `SELECT p.unit, to_char(p.period_start, 'YYYY-MM-DD') AS ps, p.kind, p.item_id, p.cuts
     FROM wrapped_percentiles p JOIN unnest($2::text[], $3::date[]) AS q(unit, start) ON p.unit = q.unit AND p.period_start = q.start
     WHERE p.tenant_id = $1`,
    [tenantId, periods.map((p) => p.unit), periods.map((p) => p.start)],
  );
  return new Map(rows.map((r) => [`${r.unit}|${r.ps}|${r.kind}|${r.item_id}`, r.cuts]));
}

/** The user's percentile: the highest cut point at or below their change (0 below every one). */
export function percentileOf(cuts: number[], value: number): number {
  let p = 0;
  for (let i = 0; i < cuts.length; i++) if (cuts[i]! <= value) p = i;
  return p;
}
