import typia from 'typia';
import type { Ctx } from '../../context';
import { DomainError, notFound } from '../../errors';
import { answer, io, route } from '../define';
import type { BatchQueue } from '../../batches/queue';
import { checkAttributeKeys, checkUserAttributes, zoneOf } from '../../services/user-input';
import { discardRejections, getRejection, listRejections } from '../../store/batch-rejections';
import type { BatchEventsBody, BatchEventsResponse, BatchRejection } from '../../wire/admin';
import { setAsideRoutes } from './set-aside';

/** 1,000 events of up to ~1 KiB each: more than the default body limit allows. */
const BATCH_BODY_BYTES = 1 << 20;

/**
 * `POST /admin/v1/metrics/events` (Trophy's batch of up to 1,000 events):
 * every item is checked here as the single event endpoint would check it
 * (the body, the metric, attribute keys, the time zone); one bad item refuses
 * the whole batch (422, or 404 for an unknown metric, as Trophy documents)
 * and nothing is queued. Accepted batches are applied in the background (see
 * batches/queue.ts); items refused then are listed under `…/events/rejected`.
 */
export function batchEventRoutes(ctx: Ctx, queue: BatchQueue) {
  const tag = 'Admin: metrics';
  return [
    route({
      method: 'post', path: '/admin/v1/metrics/events', operationId: 'admin_metrics_batch_events', tag, auth: 'admin', documents400: true,
      maxBodyBytes: Math.max(BATCH_BODY_BYTES, ctx.config.maxBodyBytes),
      summary: 'Submit up to 1,000 events for processing in the background',
      description:
        'Each item is checked as a single event would be; any invalid item refuses the whole batch and nothing is queued. ' +
        'Accepted items are applied in order by the background process, each with the consequences a single event has; ' +
        'items refused then (a metric deleted meanwhile, points blocked) are listed under /admin/v1/metrics/events/rejected.',
      body: io(typia.createValidate<BatchEventsBody>(), typia.json.schema<BatchEventsBody>()),
      responses: { 202: { description: 'Queued', schema: typia.json.schema<BatchEventsResponse>() } },
      handler: async ({ tenant, body: items }) => {
        const cfg = await ctx.configs.get(tenant);
        for (const [index, item] of items.entries()) {
          try {
            if (!cfg.metricsByKey.has(item.key)) throw notFound(`Metric "${item.key}" not found`);
            zoneOf(item.user);
            checkUserAttributes(cfg, item.user);
            checkAttributeKeys(item.attributes, cfg.eventAttributes, 'event');
          } catch (err) {
            if (err instanceof DomainError) throw new DomainError(err.kind, `Item ${index}: ${err.message}`);
            throw err;
          }
        }
        await queue.accept(tenant, items);
        return answer(202, { accepted: items.length });
      },
    }),
    ...setAsideRoutes(
      { list: (t, limit, skip) => listRejections(ctx.db, t, limit, skip), get: (t, id) => getRejection(ctx.db, t, id), discard: (t, ids) => discardRejections(ctx.db, t, ids) },
      {
        path: '/admin/v1/metrics/events/rejected', tag, name: 'admin_metrics_batch_rejections', noun: 'Rejected batch item',
        item: typia.json.schema<BatchRejection>(), items: typia.json.schema<BatchRejection[]>(),
        list: {
          summary: 'List accepted batch items that could not be applied',
          answer: 'A page, newest first, each with the status and error the single endpoint would have answered',
        },
        get: { summary: 'Get a rejected batch item', answer: 'The item, its status and error' },
        discard: { summary: 'Discard rejected batch items (by id)', answer: 'What was discarded, and ids not found' },
      },
    ),
  ];
}
