import typia from 'typia';
import type { Ctx } from '../../context';
import { resourceRoutes } from './resource';
import { batchIo } from './batch';
import { createMetric, METRICS, updateMetric } from './writes/metrics';
import type { AdminMetric, Batch, CreateMetric, Created, Updated, UpdateMetric } from '../../wire/admin';

export function metricRoutes(ctx: Ctx) {
  return resourceRoutes(ctx, METRICS, {
    name: 'metrics', one: 'metric', many: 'metrics', tag: 'Admin: metrics',
    item: typia.json.schema<AdminMetric>(), items: typia.json.schema<AdminMetric[]>(),
    create: batchIo(typia.createValidate<CreateMetric>(), typia.json.schema<Batch<CreateMetric>>()), created: typia.json.schema<Created<AdminMetric>>(),
    update: batchIo(typia.createValidate<UpdateMetric>(), typia.json.schema<Batch<UpdateMetric>>()), updated: typia.json.schema<Updated<AdminMetric>>(),
    insert: (c, s, item) => createMetric(ctx, c, s, item),
    change: (c, s, item) => updateMetric(ctx, c, s, item),
  });
}
