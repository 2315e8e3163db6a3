import type { Pool } from 'pg';
import { invalid } from '../../errors';
import type { SummaryPoint } from '../../wire/app';
import { Aggregation, dateFromDay, dayNumber, nextPeriodDay, periodStartDay } from '../../domain/time';

const MAX_RANGE_DAYS = 400;
const AGGREGATIONS: Aggregation[] = ['daily', 'weekly', 'monthly'];

/** Read `aggregation`, `startDate`/`endDate` (or `start_date`/`end_date`) from the query. */
export function summaryRange(q: URLSearchParams): { unit: Aggregation; start: number; end: number } {
  const unit = q.get('aggregation') as Aggregation | null;
  if (!unit || !AGGREGATIONS.includes(unit)) throw invalid('aggregation must be one of daily, weekly, monthly');
  const startRaw = q.get('startDate') ?? q.get('start_date');
  const endRaw = q.get('endDate') ?? q.get('end_date');
  if (!startRaw || !endRaw) throw invalid('startDate and endDate are required (YYYY-MM-DD)');
  const start = dayNumber(startRaw);
  const end = dayNumber(endRaw);
  if (start === null) throw invalid('startDate must be a date in YYYY-MM-DD format');
  if (end === null) throw invalid('endDate must be a date in YYYY-MM-DD format');
  if (end < start) throw invalid('endDate must not be before startDate');
  if (end - start >= MAX_RANGE_DAYS) throw invalid(`The date range must not exceed ${MAX_RANGE_DAYS} days`);
  return { unit, start, end };
}

/** What a summary adds up: metric event values, or points awards. */
export interface SummarySource {
  /** A table, or a subquery with the same columns. */
  table: string;
  value: 'value' | 'awarded';
  /** The column naming the metric or points system. */
  of: 'metric_id' | 'system_id';
}
/** Events still kept, and the daily sums of those retention dropped (store/event-partitions.ts). */
export const METRIC_EVENTS: SummarySource = {
  table: '(SELECT tenant_id, user_id, metric_id, local_date, value FROM events UNION ALL SELECT tenant_id, user_id, metric_id, local_date, value FROM event_days) AS x',
  value: 'value',
  of: 'metric_id',
};
export const POINTS_AWARDS: SummarySource = { table: 'points_awards', value: 'awarded', of: 'system_id' };

/**
 * One point per period from the one holding startDate to the one holding
 * endDate: the change within the period and the total at its end. Dates are
 * the user's local dates at the time of each event. Sums are exact (numeric).
 */
export async function eventSummary(db: Pool, src: SummarySource, tenantId: string, userId: string, id: string, q: URLSearchParams): Promise<SummaryPoint[]> {
  const { unit, start, end } = summaryRange(q);
  const from = periodStartDay(start, unit);
  const to = nextPeriodDay(periodStartDay(end, unit), unit) - 1;
  const trunc = unit === 'daily' ? 'day' : unit === 'weekly' ? 'week' : 'month';
  const { rows } = await db.query<{ bucket: string; change: string; total: string }>(
    `WITH base AS (
       SELECT coalesce(sum(${src.value}), 0) AS v FROM ${src.table}
       WHERE tenant_id = $1 AND user_id = $2 AND ${src.of} = $3 AND local_date < $4::date),
     b AS (
       SELECT date_trunc('${trunc}', local_date)::date AS bucket, sum(${src.value}) AS change FROM ${src.table}
       WHERE tenant_id = $1 AND user_id = $2 AND ${src.of} = $3 AND local_date BETWEEN $4::date AND $5::date
       GROUP BY 1)
     SELECT to_char(bucket, 'YYYY-MM-DD') AS bucket, change::text AS change,
            ((SELECT v FROM base) + sum(change) OVER (ORDER BY bucket))::text AS total
     FROM b ORDER BY bucket`,
    [tenantId, userId, id, dateFromDay(from), dateFromDay(to)],
  );
  const byDate = new Map(rows.map((r) => [r.bucket, r]));
  let total: number | null = null;
  const out: SummaryPoint[] = [];
  for (let d = from; d <= end; d = nextPeriodDay(d, unit)) {
    const date = dateFromDay(d);
    const hit = byDate.get(date);
    if (hit) total = Number(hit.total);
    else if (total === null) total = await baseTotal(db, src, tenantId, userId, id, date);
    out.push({ date, total, change: hit ? Number(hit.change) : 0 });
  }
  return out;
}

async function baseTotal(db: Pool, src: SummarySource, tenantId: string, userId: string, id: string, before: string): Promise<number> {
  const { rows } = await db.query<{ v: string }>(
    `SELECT coalesce(sum(${src.value}), 0)::text AS v FROM ${src.table}
     WHERE tenant_id = $1 AND user_id = $2 AND ${src.of} = $3 AND local_date < $4::date`,
    [tenantId, userId, id, before],
  );
  return Number(rows[0]!.v);
}
