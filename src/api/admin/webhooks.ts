import typia from 'typia';
import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { invalid, notFound } from '../../errors';
import { reply, Route } from '../../http/server';
import { DeliveryRow, listDeliveries, redeliver, redeliverDead, setWebhookSecret } from '../../store/webhook-deliveries';
import { newSecret } from '../../webhooks/signing';
import type {
  WebhookWithSecret, PatchWebhook, Redelivered, RotatedSecret, WebhookDelivery, WebhookDeliveryStatus, WebhookFields,
} from '../../wire/admin';
import { page } from './batch';
import { batchRoute, getRow, readDeleteRoutes, Resource, scopeOf } from './resource';
import { createWebhook, updateWebhook, webhookJson, WEBHOOKS } from './writes/webhooks';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const deliveryJson = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  webhookId: r.webhookId,
  eventId: r.eventId,
  type: r.type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt.toISOString() : null,
  lastAttemptAt: iso(r.lastAttemptAt),
  lastStatus: r.lastStatus,
  lastError: r.lastError,
  created: r.created.toISOString(),
  deliveredAt: iso(r.deliveredAt),
  payload: JSON.parse(r.payload) as unknown,
});
const isDeliveryStatus = typia.createIs<WebhookDeliveryStatus>();

/**
 * Webhook endpoints (Laurel's own: Trophy configures them in its dashboard)
 * and their deliveries. The signing secret is returned once, on creation or
 * rotation.
 */
export function webhookRoutes(ctx: Ctx): Route[] {
  const now = () => new Date(ctx.clock.now());
  const webhookOf = async (req: Parameters<Route['handler']>[0]) => {
    const s = await scopeOf(ctx, WEBHOOKS as Resource<unknown>, req);
    const row = await getRow(ctx.db, WEBHOOKS, s, uuidParam(req.params[0]!));
    if (!row) throw notFound('Webhook not found');
    return { s, row };
  };

  return [
    ...readDeleteRoutes(ctx, WEBHOOKS),
    batchRoute(
      ctx,
      WEBHOOKS,
      'post',
      typia.createValidate<WebhookFields>(),
      (c, s, item) => createWebhook(ctx, c, s, item),
      (r): WebhookWithSecret => ({ ...webhookJson(r), secret: r.secret }),
    ),
    batchRoute(ctx, WEBHOOKS, 'patch', typia.createValidate<PatchWebhook>(), (c, s, item) => updateWebhook(ctx, c, s, item)),
    {
      method: 'post',
      pattern: '/admin/v1/webhooks/:id/rotate-secret',
      handler: async (req) => {
        const { s, row } = await webhookOf(req);
        const secret = newSecret();
        await setWebhookSecret(ctx.db, s.tenant.id, row.id, ctx.secrets.seal(secret), now());
        return reply(200, { id: row.id, secret } satisfies RotatedSecret);
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/webhooks/:id/deliveries',
      handler: async (req) => {
        const { row } = await webhookOf(req);
        const status = req.query.get('status');
        if (status !== null && !isDeliveryStatus(status)) throw invalid('status must be pending, delivered or dead');
        const { limit, skip } = page(req.query);
        return reply(200, (await listDeliveries(ctx.db, row.id, status, limit, skip)).map(deliveryJson));
      },
    },
    {
      // Every dead delivery of the endpoint, sent again from the first attempt (after an outage).
      method: 'post',
      pattern: '/admin/v1/webhooks/:id/redeliver',
      handler: async (req) => {
        const { row } = await webhookOf(req);
        return reply(200, { redelivered: await redeliverDead(ctx.db, row.id, now()) } satisfies Redelivered);
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/webhooks/deliveries/:deliveryId/redeliver',
      handler: async (req) => {
        const s = await scopeOf(ctx, WEBHOOKS as Resource<unknown>, req);
        const delivery = await redeliver(ctx.db, s.tenant.id, uuidParam(req.params[0]!, 'deliveryId'), now());
        if (!delivery) throw notFound('Webhook delivery not found');
        return reply(200, deliveryJson(delivery));
      },
    },
  ];
}
