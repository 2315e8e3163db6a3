import type { PoolClient } from 'pg';
import type { CreateAttribute } from '../wire/admin';

// The attributes table: user and event attributes, keyed within their type.

export interface AttributeRow {
  id: string;
  name: string;
  key: string;
  type: CreateAttribute['type'];
}

export const ATTRIBUTE_COLS = 'id, name, key, type';

export async function insertAttribute(c: PoolClient, tenantId: string, a: AttributeRow, now: Date): Promise<AttributeRow> {
  const { rows } = await c.query<AttributeRow>(
    `INSERT INTO attributes (id, tenant_id, key, name, type, created, updated) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${ATTRIBUTE_COLS}`,
    [a.id, tenantId, a.key, a.name, a.type, now],
  );
  return rows[0]!;
}

/** Rename an attribute (null keeps its name); null when the tenant has no such attribute. */
export async function renameAttribute(c: PoolClient, tenantId: string, id: string, name: string | null, now: Date): Promise<AttributeRow | null> {
  const { rows } = await c.query<AttributeRow>(
    `UPDATE attributes SET name = coalesce($3, name), updated = $4 WHERE tenant_id = $1 AND id = $2 RETURNING ${ATTRIBUTE_COLS}`,
    [tenantId, id, name, now],
  );
  return rows[0] ?? null;
}

/** Those of `ids` that are the tenant's attributes of this type. */
export async function attributesAmong(c: PoolClient, tenantId: string, type: AttributeRow['type'], ids: string[]): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>('SELECT id FROM attributes WHERE tenant_id = $1 AND type = $2 AND id = ANY($3::uuid[])', [tenantId, type, ids]);
  return rows.map((r) => r.id);
}

export async function attributesOf(c: PoolClient, tenantId: string): Promise<AttributeRow[]> {
  return (await c.query<AttributeRow>(`SELECT ${ATTRIBUTE_COLS} FROM attributes WHERE tenant_id = $1`, [tenantId])).rows;
}
