import typia from 'typia';
import type { Ctx } from '../../context';
import { resourceRoutes } from './resource';
import { batchIo } from './batch';
import { ATTRIBUTES, createAttribute, updateAttribute } from './writes/attributes';
import type { AdminAttribute, Batch, CreateAttribute, Created, Updated, UpdateAttribute } from '../../wire/admin';

/** User and event attributes; `key` and `type` are fixed once created. */
export function attributeRoutes(ctx: Ctx) {
  return resourceRoutes(ctx, ATTRIBUTES, {
    name: 'attributes', one: 'attribute', many: 'attributes', tag: 'Admin: attributes',
    item: typia.json.schema<AdminAttribute>(), items: typia.json.schema<AdminAttribute[]>(),
    create: batchIo(typia.createValidate<CreateAttribute>(), typia.json.schema<Batch<CreateAttribute>>()), created: typia.json.schema<Created<AdminAttribute>>(),
    update: batchIo(typia.createValidate<UpdateAttribute>(), typia.json.schema<Batch<UpdateAttribute>>()), updated: typia.json.schema<Updated<AdminAttribute>>(),
    insert: (c, s, item) => createAttribute(ctx, c, s, item),
    change: (c, s, item) => updateAttribute(ctx, c, s, item),
  });
}
