import typia from 'typia';
import type { Ctx } from '../../context';
import type { Route } from '../../http/server';
import { batchRoute, readDeleteRoutes } from './resource';
import { createMetric, METRICS, updateMetric } from './writes/metrics';
import type { CreateMetric, UpdateMetric } from '../../wire/admin';

export function metricRoutes(ctx: Ctx): Route[] {
  return [
    ...readDeleteRoutes(ctx, METRICS),
    batchRoute(ctx, METRICS, 'post', typia.createValidate<CreateMetric>(), (c, s, item) => createMetric(ctx, c, s, item)),
    batchRoute(ctx, METRICS, 'patch', typia.createValidate<UpdateMetric>(), (c, s, item) => updateMetric(ctx, c, s, item)),
  ];
}
