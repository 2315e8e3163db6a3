import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import type { Resource, Scope } from '../resource';
import type { CreateAttribute, UpdateAttribute } from '../../../wire/admin';

// Attribute writes, shared by the Admin API and the configuration document. `key` and `type` are fixed once created.

type AttributeType = CreateAttribute['type'];

export interface AttributeRow {
  id: string;
  name: string;
  key: string;
  type: AttributeType;
}
const COLS = 'id, name, key, type';
export const ATTRIBUTES: Resource<AttributeRow> = {
  path: '/admin/v1/attributes',
  table: 'attributes',
  cols: COLS,
  order: 'seq',
  noun: 'Attribute',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, type: r.type }),
};

export async function createAttribute(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: CreateAttribute): Promise<AttributeRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  const taken = await c.query('SELECT 1 FROM attributes WHERE tenant_id = $1 AND type = $2 AND key = $3', [tenant.id, item.type, item.key]);
  if (taken.rowCount) return 'Key already in use by another attribute of this type';
  const { rows } = await c.query<AttributeRow>(
    `INSERT INTO attributes (id, tenant_id, key, name, type, created, updated) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${COLS}`,
    [randomUUID(), tenant.id, item.key, item.name, item.type, new Date(ctx.clock.now())],
  );
  return rows[0]!;
}

export async function updateAttribute(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: UpdateAttribute): Promise<AttributeRow | string> {
  const { rows } = await c.query<AttributeRow>(
    `UPDATE attributes SET name = coalesce($3, name), updated = $4 WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
    [tenant.id, item.id.toLowerCase(), item.name ?? null, new Date(ctx.clock.now())],
  );
  return rows[0] ?? 'Attribute not found';
}
