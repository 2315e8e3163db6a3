import { randomUUID } from 'node:crypto';
import typia from 'typia';
import type { Ctx } from '../../context';
import type { Route } from '../../http/server';
import { KEY_PATTERN, KEY_RULE } from './batch';
import { batchRoute, readDeleteRoutes, Resource } from './resource';
import type { CreateAttribute, UpdateAttribute } from '../../wire/admin';

type AttributeType = CreateAttribute['type'];

interface Row {
  id: string;
  name: string;
  key: string;
  type: AttributeType;
}
const COLS = 'id, name, key, type';
const ATTRIBUTES: Resource<Row> = {
  path: '/admin/v1/attributes',
  table: 'attributes',
  cols: COLS,
  order: 'seq',
  noun: 'Attribute',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, type: r.type }),
};

/** User and event attributes; `key` and `type` are fixed once created. */
export function attributeRoutes(ctx: Ctx): Route[] {
  return [
    ...readDeleteRoutes(ctx, ATTRIBUTES),
    batchRoute(ctx, ATTRIBUTES, 'post', typia.createValidate<CreateAttribute>(), async (c, { tenant }, item) => {
      if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
      const taken = await c.query('SELECT 1 FROM attributes WHERE tenant_id = $1 AND type = $2 AND key = $3', [tenant.id, item.type, item.key]);
      if (taken.rowCount) return 'Key already in use by another attribute of this type';
      const { rows } = await c.query<Row>(
        `INSERT INTO attributes (id, tenant_id, key, name, type, created, updated) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${COLS}`,
        [randomUUID(), tenant.id, item.key, item.name, item.type, new Date(ctx.clock.now())],
      );
      return rows[0]!;
    }),
    batchRoute(ctx, ATTRIBUTES, 'patch', typia.createValidate<UpdateAttribute>(), async (c, { tenant }, item) => {
      const { rows } = await c.query<Row>(
        `UPDATE attributes SET name = coalesce($3, name), updated = $4 WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
        [tenant.id, item.id.toLowerCase(), item.name ?? null, new Date(ctx.clock.now())],
      );
      return rows[0] ?? 'Attribute not found';
    }),
  ];
}
