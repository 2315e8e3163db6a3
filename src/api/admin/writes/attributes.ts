import type { AdminAttribute } from '../../../wire/admin';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { ATTRIBUTE_COLS, AttributeRow, insertAttribute, renameAttribute } from '../../../store/attributes';
import { attributeIdOfKey } from '../../../store/config-keys';
import type { Resource, Scope } from '../resource';
import type { CreateAttribute, UpdateAttribute } from '../../../wire/admin';

// Attribute writes, shared by the Admin API and the configuration document. `key` and `type` are fixed once created.

export const ATTRIBUTES: Resource<AttributeRow, AdminAttribute> = {
  path: '/admin/v1/attributes',
  table: 'attributes',
  cols: ATTRIBUTE_COLS,
  order: 'seq',
  noun: 'Attribute',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, type: r.type }),
};

export async function createAttribute(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: CreateAttribute): Promise<AttributeRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await attributeIdOfKey(c, tenant.id, item.type, item.key)) !== null) return 'Key already in use by another attribute of this type';
  return insertAttribute(c, tenant.id, { id: randomUUID(), key: item.key, name: item.name, type: item.type }, new Date(ctx.clock.now()));
}

export async function updateAttribute(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: UpdateAttribute): Promise<AttributeRow | string> {
  return (await renameAttribute(c, tenant.id, item.id.toLowerCase(), item.name ?? null, new Date(ctx.clock.now()))) ?? 'Attribute not found';
}
