import type { Pool } from 'pg';
import type { BatchEvent, BatchRejection } from '../wire/admin';

/**
 * Accepted batch items that could not be applied when their turn came
 * (batches/queue.ts), each with the status and error the single event
 * endpoint would have answered; listed, read and discarded through the Admin API.
 */

interface Row {
  id: string;
  batch_id: string;
  item_index: number;
  item: BatchEvent;
  status: number;
  error: string;
  at: Date;
}

const COLS = 'id, batch_id, item_index, item, status, error, at';
const json = (r: Row): BatchRejection => ({ id: r.id, batchId: r.batch_id, index: r.item_index, item: r.item, status: r.status, error: r.error, at: r.at.toISOString() });

export interface NewRejection {
  /** Derived from the batch and the item's place in it: the same item refused again is kept once. */
  id: string;
  batchId: string;
  index: number;
  item: BatchEvent;
  status: number;
  error: string;
  at: Date;
}

export async function addRejection(db: Pool, tenantId: string, r: NewRejection): Promise<void> {
  await db.query(
    `INSERT INTO batch_rejections (id, tenant_id, batch_id, item_index, user_id, item, status, error, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
    [r.id, tenantId, r.batchId, r.index, r.item.user.id, JSON.stringify(r.item), r.status, r.error, r.at],
  );
}

/** A page of a tenant's rejected items, newest first. */
export async function listRejections(db: Pool, tenantId: string, limit: number, skip: number): Promise<BatchRejection[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLS} FROM batch_rejections WHERE tenant_id = $1 ORDER BY at DESC, batch_id DESC, item_index LIMIT $2 OFFSET $3`,
    [tenantId, limit, skip],
  );
  return rows.map(json);
}

export async function getRejection(db: Pool, tenantId: string, id: string): Promise<BatchRejection | null> {
  const { rows } = await db.query<Row>(`SELECT ${COLS} FROM batch_rejections WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  return rows[0] ? json(rows[0]) : null;
}

/** Discard rejected items by id: the ids that were there. */
export async function discardRejections(db: Pool, tenantId: string, ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('DELETE FROM batch_rejections WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id', [tenantId, ids]);
  return rows.map((r) => r.id);
}
