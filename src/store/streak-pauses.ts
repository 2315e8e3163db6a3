import type { Pool } from 'pg';

/** A streak pause as stored: dates are YYYY-MM-DD in the user's zone. */
export interface StoredPause {
  id: string;
  start: string;
  end: string;
}

export interface NewPause extends StoredPause {
  tenantId: string;
  userId: string;
  created: Date;
}

/** A user's pauses (past, current and upcoming), earliest first. */
export async function pausesOf(db: Pool, tenantId: string, userId: string): Promise<StoredPause[]> {
  const { rows } = await db.query<StoredPause>(
    `SELECT id, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS end
     FROM streak_pauses WHERE tenant_id = $1 AND user_id = $2 ORDER BY start_date`,
    [tenantId, userId],
  );
  return rows;
}

export async function insertPause(db: Pool, p: NewPause): Promise<void> {
  await db.query('INSERT INTO streak_pauses (id, tenant_id, user_id, start_date, end_date, created) VALUES ($1, $2, $3, $4, $5, $6)', [
    p.id, p.tenantId, p.userId, p.start, p.end, p.created,
  ]);
}

export async function deletePause(db: Pool, id: string): Promise<void> {
  await db.query('DELETE FROM streak_pauses WHERE id = $1', [id]);
}

/** Delete those of `ids` that are the tenant's; answers the ones deleted, with their users. */
export async function deletePauses(db: Pool, tenantId: string, ids: string[]): Promise<{ id: string; userId: string }[]> {
  const { rows } = await db.query<{ id: string; userId: string }>(
    'DELETE FROM streak_pauses WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id, user_id AS "userId"',
    [tenantId, ids],
  );
  return rows;
}
