import type { Pool, PoolClient } from 'pg';

/** How many of `ids` (distinct, lower case) are the tenant's metrics. */
export async function countMetrics(db: Pool | PoolClient, tenantId: string, ids: string[]): Promise<number> {
  const { rowCount } = await db.query('SELECT id FROM metrics WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [tenantId, ids]);
  return rowCount ?? 0;
}
