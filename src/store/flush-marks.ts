import type { PoolClient } from 'pg';
import { together } from './db';

/*
 * Per tenant, what the flusher has stored of its events (migrations/035):
 * the newest stream version, and the oldest event time.
 */

/**
 * Take the tenant's mark for the caller's transaction and move it on to a
 * batch's events (newest version, oldest time). Its row lock, held to the
 * commit, makes a second flusher of the tenant wait and then read the mark
 * this one left. Returns the version held before (null: none kept): no
 * event newer than that was ever stored, since every batch that stores
 * events moves the mark past them in the same transaction.
 */
export async function takeFlushMark(c: PoolClient, tenantId: string, newest: string, oldestAt: number): Promise<string | null> {
  // Two statements: a locking read in the upsert's own statement would not
  // see the row that statement updates. A row made now is locked by its insert.
  const [{ rows }] = await together(
    c,
    () => c.query<{ ver: string | null }>({
      name: 'flush-mark-read',
      text: 'SELECT ver::text FROM flush_marks WHERE tenant_id = $1 FOR UPDATE',
      values: [tenantId],
    }),
    () => c.query({
      name: 'flush-mark-move',
      text: `INSERT INTO flush_marks AS m (tenant_id, ver, first_at) VALUES ($1, $2, to_timestamp($3 / 1000.0))
       ON CONFLICT (tenant_id) DO UPDATE SET ver = greatest(m.ver, excluded.ver), first_at = least(m.first_at, excluded.first_at)`,
      values: [tenantId, newest, oldestAt],
    }),
  );
  return rows[0]?.ver ?? null;
}
