import type { Pool } from 'pg';

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
/** Awards still kept (the awards view), and the daily sums of those retention dropped with their events. */
export const POINTS_AWARDS: SummarySource = {
  table: '(SELECT tenant_id, user_id, system_id, local_date, awarded FROM awards UNION ALL SELECT tenant_id, user_id, system_id, local_date, awarded FROM points_days) AS x',
  value: 'awarded',
  of: 'system_id',
};

/** One user's sums of one metric or points system (`id`), by local date. */
export interface SumsOf {
  tenantId: string;
  userId: string;
  id: string;
}

/**
 * The periods (`trunc`: day, week or month) between two dates that have any
 * change, each with its change and the running total at its end, as exact
 * decimal strings, earliest first.
 */
export async function periodSums(db: Pool, src: SummarySource, of: SumsOf, trunc: 'day' | 'week' | 'month', from: string, to: string): Promise<{ bucket: string; change: string; total: string }[]> {
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
    [of.tenantId, of.userId, of.id, from, to],
  );
  return rows;
}

/** The total of everything before a date, as an exact decimal string. */
export async function sumBefore(db: Pool, src: SummarySource, of: SumsOf, before: string): Promise<string> {
  const { rows } = await db.query<{ v: string }>(
    `SELECT coalesce(sum(${src.value}), 0)::text AS v FROM ${src.table}
     WHERE tenant_id = $1 AND user_id = $2 AND ${src.of} = $3 AND local_date < $4::date`,
    [of.tenantId, of.userId, of.id, before],
  );
  return rows[0]!.v;
}
