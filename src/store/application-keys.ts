import type { Pool } from 'pg';
import { tx } from './db';

/** A new user-scoped application key (only the secret's hash is kept). */
export interface NewApplicationKey {
  id: string;
  prefix: string;
  secretHash: string;
  userId: string;
  /** Per second and burst; null for the deployment's default, 0 per second for none. */
  rate: number | null;
  burst: number | null;
}

/** Insert keys together: all or none. */
export async function insertApplicationKeys(db: Pool, tenantId: string, created: Date, keys: NewApplicationKey[]): Promise<void> {
  await tx(db, async (c) => {
    for (const k of keys) {
      await c.query(
        `INSERT INTO api_keys (id, prefix, secret_hash, kind, tenant_id, user_id, created, rate_limit, rate_burst)
         VALUES ($1, $2, $3, 'application', $4, $5, $6, $7, $8)`,
        [k.id, k.prefix, k.secretHash, tenantId, k.userId, created, k.rate, k.burst],
      );
    }
  });
}

/** Set keys' rate limits together: per key, its prefix and user, or null when the tenant has no such key. */
export async function setApplicationKeyLimits(
  db: Pool, tenantId: string, changes: { id: string; rate: number | null; burst: number | null }[],
): Promise<({ prefix: string; userId: string } | null)[]> {
  return tx(db, async (c) => {
    const out: ({ prefix: string; userId: string } | null)[] = [];
    for (const k of changes) {
      const { rows } = await c.query<{ prefix: string; userId: string }>(
        `UPDATE api_keys SET rate_limit = $2, rate_burst = $3 WHERE kind = 'application' AND id = $1 AND tenant_id = $4 RETURNING prefix, user_id AS "userId"`,
        [k.id, k.rate, k.burst, tenantId],
      );
      out.push(rows[0] ?? null);
    }
    return out;
  });
}

/** Delete those of `ids` that are the tenant's application keys; answers the ones deleted. */
export async function deleteApplicationKeys(db: Pool, tenantId: string, ids: string[]): Promise<{ id: string; prefix: string }[]> {
  const { rows } = await db.query<{ id: string; prefix: string }>(
    `DELETE FROM api_keys WHERE kind = 'application' AND id = ANY($1::uuid[]) AND tenant_id = $2 RETURNING id, prefix`,
    [ids, tenantId],
  );
  return rows;
}
