import type { PoolClient } from 'pg';
import type { BoardStatus, RankBy, RunUnit } from '../domain/leaderboards';

// The leaderboards table: each board's ranking, window and runs. Dates come
// back as YYYY-MM-DD text.

export interface BoardRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  status: BoardStatus;
  rank_by: RankBy;
  metric_id: string | null;
  points_system_id: string | null;
  max_participants: number;
  start_date: string;
  end_date: string | null;
  start_time: string | null;
  end_time: string | null;
  breakdown_attributes: string[];
  run_unit: RunUnit | null;
  run_interval: number | null;
}

export const BOARD_COLS = `id, key, name, description, status, rank_by, metric_id, points_system_id, max_participants,
    to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(end_date, 'YYYY-MM-DD') AS end_date, start_time, end_time,
    breakdown_attributes, run_unit, run_interval`;

/** What a write sets: every column but the id (checked by the caller). */
export type BoardColumns = Omit<BoardRow, 'id'>;

const values = (b: BoardColumns) => [
  b.key, b.name, b.description, b.status, b.rank_by, b.metric_id, b.points_system_id, b.max_participants, b.start_date, b.end_date,
  b.start_time, b.end_time, b.breakdown_attributes, b.run_unit, b.run_interval,
];

export async function insertBoard(c: PoolClient, tenantId: string, id: string, slot: number, b: BoardColumns, now: Date): Promise<BoardRow> {
  const { rows } = await c.query<BoardRow>(
    `INSERT INTO leaderboards (tenant_id, id, slot, key, name, description, status, rank_by, metric_id, points_system_id,
       max_participants, start_date, end_date, start_time, end_time, breakdown_attributes, run_unit, run_interval, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19) RETURNING ${BOARD_COLS}`,
    [tenantId, id, slot, ...values(b), now],
  );
  return rows[0]!;
}

export async function updateBoardRow(c: PoolClient, tenantId: string, id: string, b: BoardColumns, now: Date): Promise<BoardRow> {
  const { rows } = await c.query<BoardRow>(
    `UPDATE leaderboards SET key = $3, name = $4, description = $5, status = $6, rank_by = $7, metric_id = $8, points_system_id = $9,
       max_participants = $10, start_date = $11, end_date = $12, start_time = $13, end_time = $14, breakdown_attributes = $15,
       run_unit = $16, run_interval = $17, updated = $18
     WHERE tenant_id = $1 AND id = $2 RETURNING ${BOARD_COLS}`,
    [tenantId, id, ...values(b), now],
  );
  return rows[0]!;
}

export async function boardsOf(c: PoolClient, tenantId: string): Promise<BoardRow[]> {
  return (await c.query<BoardRow>(`SELECT ${BOARD_COLS} FROM leaderboards WHERE tenant_id = $1`, [tenantId])).rows;
}
