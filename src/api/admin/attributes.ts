import typia from 'typia';
import type { Ctx } from '../../context';
import type { Route } from '../../http/server';
import { batchRoute, readDeleteRoutes } from './resource';
import { ATTRIBUTES, createAttribute, updateAttribute } from './writes/attributes';
import type { CreateAttribute, UpdateAttribute } from '../../wire/admin';

/** User and event attributes; `key` and `type` are fixed once created. */
export function attributeRoutes(ctx: Ctx): Route[] {
  return [
    ...readDeleteRoutes(ctx, ATTRIBUTES),
    batchRoute(ctx, ATTRIBUTES, 'post', typia.createValidate<CreateAttribute>(), (c, s, item) => createAttribute(ctx, c, s, item)),
    batchRoute(ctx, ATTRIBUTES, 'patch', typia.createValidate<UpdateAttribute>(), (c, s, item) => updateAttribute(ctx, c, s, item)),
  ];
}
