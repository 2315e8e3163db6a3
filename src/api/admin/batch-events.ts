import typia from 'typia';
import { identifyAdmin, type Ctx } from '../../context';
import { check, jsonBody } from '../../http/body';
import { DomainError, notFound } from '../../errors';
import { reply, Route } from '../../http/server';
import type { BatchQueue } from '../../batches/queue';
import { checkAttributeKeys, checkUserAttributes, zoneOf } from '../../services/user-input';
import type { BatchEventsBody, BatchRejection } from '../../wire/admin';
import { readDeleteRoutes, Resource } from './resource';

const validateBatch = typia.createValidate<BatchEventsBody>();

/** 1,000 events of up to ~1 KiB each: more than the default body limit allows. */
const BATCH_BODY_BYTES = 1 << 20;

interface RejectionRow {
  id: string;
  batch_id: string;
  item_index: number;
  item: BatchRejection['item'];
  status: number;
  error: string;
  at: Date;
}

const REJECTIONS: Resource<RejectionRow> = {
  path: '/admin/v1/metrics/events/rejected',
  table: 'batch_rejections',
  cols: 'id, batch_id, item_index, item, status, error, at',
  order: 'at DESC, batch_id DESC, item_index',
  noun: 'Rejected batch item',
  plain: true,
  json: (r): BatchRejection => ({ id: r.id, batchId: r.batch_id, index: r.item_index, item: r.item, status: r.status, error: r.error, at: r.at.toISOString() }),
};

/**
 * `POST /admin/v1/metrics/events` (Trophy's batch of up to 1,000 events):
 * every item is checked here as the single event endpoint would check it
 * (the body, the metric, attribute keys, the time zone); one bad item refuses
 * the whole batch (422, or 404 for an unknown metric, as Trophy documents)
 * and nothing is queued. Accepted batches are applied in the background (see
 * batches/queue.ts); items refused then are listed under `…/events/rejected`.
 */
export function batchEventRoutes(ctx: Ctx, queue: BatchQueue): Route[] {
  return [
    {
      method: 'post',
      pattern: '/admin/v1/metrics/events',
      body: true,
      documents400: true,
      maxBodyBytes: Math.max(BATCH_BODY_BYTES, ctx.config.maxBodyBytes),
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const items = check(validateBatch, jsonBody(req));
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
        return reply(202, { accepted: items.length });
      },
    },
    ...readDeleteRoutes(ctx, REJECTIONS),
  ];
}
