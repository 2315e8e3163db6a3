import type { Pool } from 'pg';

/** The history tables' BRIN time indexes (migrations/029 and 035; a partitioned one summarized partition by partition). */
const BRIN_INDEXES = ['points_awards_by_time', 'streak_periods_by_period', 'events_by_time'] as const;

/**
 * Summarize the block ranges filled since the last call. Autovacuum does so
 * as well (`autosummarize`), but not where it is turned off, and a range
 * not summarized is read whole by every time-window read.
 */
export async function summarizeTimeIndexes(db: Pool): Promise<void> {
  const { rows } = await db.query<{ oid: string }>(
    `SELECT c.oid::text FROM pg_class c WHERE c.relkind = 'i'
       AND (c.oid = ANY($1::regclass[]) OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = ANY($1::regclass[])))`,
    [BRIN_INDEXES],
  );
  // One index a statement, each named only while it exists: a month dropped meanwhile is passed over.
  for (const { oid } of rows) await db.query('SELECT brin_summarize_new_values(oid) FROM pg_class WHERE oid = $1::oid', [oid]);
}
