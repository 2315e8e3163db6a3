import type { Pool } from 'pg';

/** One change of a user's place on a board's run. */
export interface BoardEvent {
  date: string;
  at: Date;
  previousRank: number | null;
  rank: number | null;
  previousValue: number | null;
  value: number | null;
}

/** A user's `n` newest changes on a board's run, newest first. */
export async function userBoardEvents(db: Pool, tenantId: string, boardId: string, run: number, userId: string, n: number): Promise<BoardEvent[]> {
  const { rows } = await db.query<{ d: string; at: Date; previous_rank: number | null; rank: number | null; previous_value: string | null; value: string | null }>({
    name: 'board-user-history',
    text: `SELECT to_char(local_date, 'YYYY-MM-DD') AS d, at, previous_rank, rank, previous_value, value FROM leaderboard_events
           WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND user_id = $4 ORDER BY at DESC, seq DESC LIMIT $5`,
    values: [tenantId, boardId, run, userId, n],
  });
  return rows.map((e) => ({
    date: e.d,
    at: e.at,
    previousRank: e.previous_rank,
    rank: e.rank,
    previousValue: e.previous_value === null ? null : Number(e.previous_value),
    value: e.value === null ? null : Number(e.value),
  }));
}
