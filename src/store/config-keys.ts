import type { PoolClient } from 'pg';

// Config objects by key: the configuration document names them by key, their
// tables by id. Attributes are keyed within their type.

/** Config tables whose rows carry a key unique in the tenant. */
type Keyed = 'metrics' | 'achievements' | 'points_systems' | 'leaderboards' | 'leagues';
type AttributeType = 'user' | 'event';

/** The id of the tenant's object with this key (null: none). */
export async function idOfKey(c: PoolClient, tenantId: string, table: Keyed, key: string): Promise<string | null> {
  const { rows } = await c.query<{ id: string }>(`SELECT id FROM ${table} WHERE tenant_id = $1 AND key = $2`, [tenantId, key]);
  return rows[0]?.id ?? null;
}

export async function attributeIdOfKey(c: PoolClient, tenantId: string, type: AttributeType, key: string): Promise<string | null> {
  const { rows } = await c.query<{ id: string }>('SELECT id FROM attributes WHERE tenant_id = $1 AND type = $2 AND key = $3', [tenantId, type, key]);
  return rows[0]?.id ?? null;
}

/** The keys of the tenant's objects in a table, by id. */
export async function keysById(c: PoolClient, tenantId: string, table: Keyed | 'attributes'): Promise<Map<string, string>> {
  const { rows } = await c.query<{ id: string; key: string }>(`SELECT id, key FROM ${table} WHERE tenant_id = $1`, [tenantId]);
  return new Map(rows.map((r) => [r.id, r.key]));
}

/** Delete the tenant's object with this key. */
export async function deleteByKey(c: PoolClient, tenantId: string, table: Keyed, key: string): Promise<void> {
  await c.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND key = $2`, [tenantId, key]);
}

export async function deleteAttributeByKey(c: PoolClient, tenantId: string, type: AttributeType, key: string): Promise<void> {
  await c.query('DELETE FROM attributes WHERE tenant_id = $1 AND type = $2 AND key = $3', [tenantId, type, key]);
}
