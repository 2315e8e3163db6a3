import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { tx } from './db';

/** An admin key as stored (never its secret). */
export interface AdminKeyRow {
  id: string;
  name: string | null;
  prefix: string;
  status: 'active' | 'inactive';
  created: Date;
  lastUsed: Date | null;
  source: 'api' | 'bootstrap' | 'environment';
}

const COLS = 'id, name, prefix, status, created, last_used AS "lastUsed", source';

/** Every admin key, oldest first. */
export async function listAdminKeys(db: Pool): Promise<AdminKeyRow[]> {
  return (await db.query<AdminKeyRow>(`SELECT ${COLS} FROM api_keys WHERE kind = 'admin' ORDER BY created, id`)).rows;
}

export async function getAdminKey(db: Pool | PoolClient, id: string): Promise<AdminKeyRow | null> {
  return (await db.query<AdminKeyRow>(`SELECT ${COLS} FROM api_keys WHERE kind = 'admin' AND id = $1`, [id])).rows[0] ?? null;
}

/** The admin keys inside one transaction that holds the keys' lock: counts and changes see no concurrent change. */
export interface LockedAdminKeys {
  get(id: string): Promise<AdminKeyRow | null>;
  /** Every admin key, whatever its source or status. */
  count(): Promise<number>;
  /** Active keys kept in the table (ADMIN_API_KEY's row is not counted: the variable may go). */
  activeStored(): Promise<number>;
  insert(k: { prefix: string; secretHash: string; created: Date; name: string }): Promise<AdminKeyRow>;
  rekey(id: string, prefix: string, secretHash: string): Promise<AdminKeyRow>;
  setStatus(id: string, status: AdminKeyRow['status']): Promise<AdminKeyRow>;
  delete(id: string): Promise<void>;
}

/** Run `fn` in a transaction holding the admin keys' lock; a throw undoes all of it. */
export function withAdminKeysLocked<T>(db: Pool, fn: (keys: LockedAdminKeys) => Promise<T>): Promise<T> {
  return tx(db, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-admin-key'))`);
    const one = async (sql: string, params: unknown[]) => (await c.query<AdminKeyRow>(sql, params)).rows[0]!;
    return fn({
      get: (id) => getAdminKey(c, id),
      count: async () => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE kind = 'admin'`)).rows[0]!.n,
      activeStored: async () =>
        (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE kind = 'admin' AND status = 'active' AND source <> 'environment'`)).rows[0]!.n,
      insert: (k) => one(
        `INSERT INTO api_keys (id, prefix, secret_hash, kind, created, name, source) VALUES ($1, $2, $3, 'admin', $4, $5, 'api') RETURNING ${COLS}`,
        [randomUUID(), k.prefix, k.secretHash, k.created, k.name],
      ),
      rekey: (id, prefix, secretHash) => one(`UPDATE api_keys SET prefix = $2, secret_hash = $3 WHERE id = $1 RETURNING ${COLS}`, [id, prefix, secretHash]),
      setStatus: (id, status) => one(`UPDATE api_keys SET status = $2 WHERE id = $1 RETURNING ${COLS}`, [id, status]),
      delete: async (id) => { await c.query('DELETE FROM api_keys WHERE id = $1', [id]); },
    });
  });
}
