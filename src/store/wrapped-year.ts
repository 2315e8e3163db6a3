import type { Pool } from 'pg';
import { METRIC_EVENTS, POINTS_AWARDS } from './event-sums';

/** A sum per item and local date within the year; `d` null for the sum of everything before it. */
export interface DatedSum {
  item: string;
  d: string | null;
  v: number;
}

/** Whose year, and which of the tenant's achievements and boards to look in. */
export interface YearOf {
  tenantId: string;
  userId: string;
  /** The year's first and last dates (YYYY-MM-DD). */
  first: string;
  last: string;
  achievementIds: string[];
  boardIds: string[];
}

/** What a year in review is computed from: a user's durable record over one year, read at once. */
export interface YearRecord {
  /** Per metric. */
  metrics: DatedSum[];
  /** Per metric, event attribute and value (`metric\x1fkey\x1fvalue`). */
  attributes: DatedSum[];
  /** Per points system. */
  points: DatedSum[];
  /** Events per local date within the year. */
  eventCounts: { d: string; n: number }[];
  /** Achievements completed around the year (two days either side: the caller knows the user's zone). */
  completions: { id: string; at: Date }[];
  /** Ranks the user reached on boards within the year. */
  ranks: { id: string; d: string; rank: number; value: number }[];
}

/**
 * Metric and points sums count what retention dropped too (its daily sums,
 * as the summaries do); the per-attribute sums and the event counts read
 * the events still kept.
 */
export async function yearRecord(db: Pool, y: YearOf): Promise<YearRecord> {
  const args = [y.tenantId, y.userId, y.first, y.last];
  const [metricRows, attrRows, pointRows, counts, completions, ranks] = await Promise.all([
    db.query<DatedSum>(
      `SELECT metric_id AS item, CASE WHEN local_date < $3 THEN NULL ELSE to_char(local_date, 'YYYY-MM-DD') END AS d, sum(value)::float8 AS v
       FROM ${METRIC_EVENTS.table} WHERE tenant_id = $1 AND user_id = $2 AND local_date <= $4 GROUP BY 1, 2`, args),
    db.query<DatedSum>(
      `SELECT e.metric_id || E'\\x1f' || kv.key || E'\\x1f' || kv.value AS item,
              CASE WHEN e.local_date < $3 THEN NULL ELSE to_char(e.local_date, 'YYYY-MM-DD') END AS d, sum(e.value)::float8 AS v
       FROM events e CROSS JOIN LATERAL jsonb_each_text(e.attributes) kv
       WHERE e.tenant_id = $1 AND e.user_id = $2 AND e.local_date <= $4 AND jsonb_typeof(e.attributes) = 'object' GROUP BY 1, 2`, args),
    db.query<DatedSum>(
      `SELECT system_id AS item, CASE WHEN local_date < $3 THEN NULL ELSE to_char(local_date, 'YYYY-MM-DD') END AS d, sum(awarded)::float8 AS v
       FROM ${POINTS_AWARDS.table} WHERE tenant_id = $1 AND user_id = $2 AND local_date <= $4 GROUP BY 1, 2`, args),
    db.query<{ d: string; n: number }>(
      `SELECT to_char(local_date, 'YYYY-MM-DD') AS d, count(*)::int AS n FROM events
       WHERE tenant_id = $1 AND user_id = $2 AND local_date BETWEEN $3 AND $4 GROUP BY 1`, args),
    // Naming the tenant's achievements and boards lets these use their (tenant, achievement or board, user) indexes.
    db.query<{ id: string; at: Date }>(
      `SELECT achievement_id AS id, achieved_at AS at FROM achievement_completions
       WHERE tenant_id = $1 AND achievement_id = ANY($5::uuid[]) AND user_id = $2
         AND achieved_at >= ($3::date - 2)::timestamptz AND achieved_at < ($4::date + 2)::timestamptz`,
      [...args, y.achievementIds]),
    db.query<{ id: string; d: string; rank: number; value: number }>(
      `SELECT leaderboard_id AS id, to_char(local_date, 'YYYY-MM-DD') AS d, rank, value::float8 AS value FROM leaderboard_events
       WHERE tenant_id = $1 AND leaderboard_id = ANY($5::uuid[]) AND user_id = $2 AND local_date BETWEEN $3 AND $4 AND rank IS NOT NULL`,
      [...args, y.boardIds]),
  ]);
  return {
    metrics: metricRows.rows, attributes: attrRows.rows, points: pointRows.rows, eventCounts: counts.rows, completions: completions.rows, ranks: ranks.rows,
  };
}
