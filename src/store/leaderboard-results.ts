import type { Pool } from 'pg';

/** A user's place in a run's final rankings. */
export interface StoredRanking {
  userId: string;
  rank: number;
  value: number;
}

/** Which part of one group's final rankings of a run to read. */
export interface ResultsPage {
  tenantId: string;
  boardId: string;
  run: number;
  /** The group, joined (domain/leaderboards joinGroup). */
  group: string;
  /** Places counted from `userId`'s (from the top when ''); no rows when that user has no result. */
  userId: string;
  offset: number;
  limit: number;
}

/** A page of a run's final rankings, by rank. */
export async function resultsPage(db: Pool, p: ResultsPage): Promise<StoredRanking[]> {
  const { rows } = await db.query<StoredRanking>({
    name: 'board-results-page',
    // $7: the user the page starts at ('' for the top); without a result row for them, no rows.
    text: `WITH base AS (SELECT CASE WHEN $7 = '' THEN 0 ELSE (SELECT rank - 1 FROM leaderboard_results
             WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND grp = $4 AND user_id = $7) END AS n)
           SELECT user_id AS "userId", rank, value::float8 AS value FROM leaderboard_results, base
           WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND grp = $4 AND rank > base.n + $5 AND rank <= base.n + $6
           ORDER BY rank`,
    values: [p.tenantId, p.boardId, p.run, p.group, p.offset, p.offset + p.limit, p.userId],
  });
  return rows;
}

/** A user's final rank and value in a run, null when they have none. */
export async function userResult(db: Pool, tenantId: string, boardId: string, run: number, userId: string): Promise<{ rank: number; value: number } | null> {
  const { rows } = await db.query<{ rank: number; value: number }>(
    'SELECT rank, value::float8 AS value FROM leaderboard_results WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND user_id = $4',
    [tenantId, boardId, run, userId],
  );
  return rows[0] ?? null;
}

/** The last run whose final rankings are stored (and its live sets dropped), -1 when none. */
export async function finalizedRun(db: Pool, tenantId: string, boardId: string): Promise<number> {
  const { rows } = await db.query<{ finalized_run: number }>({
    name: 'board-finalized-run', text: 'SELECT finalized_run FROM leaderboards WHERE id = $1 AND tenant_id = $2', values: [boardId, tenantId],
  });
  return rows[0]?.finalized_run ?? -1;
}
