import type { Pool } from 'pg';

/** The history tables' BRIN time indexes (migrations/029). */
const BRIN_INDEXES = ['points_awards_by_time', 'streak_periods_by_period'] as const;

/**
 * Summarize the block ranges filled since the last call. Autovacuum does so
 * as well (`autosummarize`), but not where it is turned off, and a range
 * not summarized is read whole by every time-window read.
 */
export async function summarizeTimeIndexes(db: Pool): Promise<void> {
  for (const index of BRIN_INDEXES) await db.query('SELECT brin_summarize_new_values($1::regclass)', [index]);
}
