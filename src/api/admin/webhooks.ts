import typia from 'typia';
import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { DeliveryRow, listDeliveries, redeliver, redeliverDead, setWebhookSecret } from '../../store/webhook-deliveries';
import { newSecret } from '../../webhooks/signing';
import type { Tenant } from '../../store/tenants';
import type {
  AdminWebhook, Batch, Created, PatchWebhook, Redelivered, RotatedSecret, Updated, WebhookDeliveriesQuery, WebhookDelivery, WebhookFields,
  WebhookWithSecret,
} from '../../wire/admin';
import { io, ok, route } from '../define';
import { batchIo } from './batch';
import { pageOf } from './collection';
import { resourceRoutes, rowOf } from './resource';
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

const tag = 'Admin: webhooks';

/**
 * Webhook endpoints (Laurel's own: Trophy configures them in its dashboard)
 * and their deliveries. The signing secret is returned once, on creation or
 * rotation.
 */
export function webhookRoutes(ctx: Ctx) {
  const now = () => new Date(ctx.clock.now());
  const webhookOf = (i: { tenant: Tenant; params: { id: string } }) => rowOf(ctx, WEBHOOKS, i.tenant, i.params, uuidParam(i.params.id));

  return [
    ...resourceRoutes(ctx, WEBHOOKS, {
      name: 'webhooks', one: 'webhook endpoint', many: 'webhook endpoints', tag,
      item: typia.json.schema<AdminWebhook>(), items: typia.json.schema<AdminWebhook[]>(),
      create: batchIo(typia.createValidate<WebhookFields>(), typia.json.schema<Batch<WebhookFields>>()), created: typia.json.schema<Created<WebhookWithSecret>>(),
      update: batchIo(typia.createValidate<PatchWebhook>(), typia.json.schema<Batch<PatchWebhook>>()), updated: typia.json.schema<Updated<AdminWebhook>>(),
      insert: (c, s, item) => createWebhook(ctx, c, s, item),
      change: (c, s, item) => updateWebhook(ctx, c, s, item),
      createdJson: (r) => ({ ...webhookJson(r), secret: r.secret }),
    }),
    route({
      method: 'post', path: '/admin/v1/webhooks/:id/rotate-secret', operationId: 'admin_webhooks_rotate_secret', tag, auth: 'admin',
      summary: "Replace a webhook endpoint's signing secret",
      description: 'The new secret is in this response only; deliveries are signed with it from now on.',
      responses: { 200: { description: 'The new secret', schema: typia.json.schema<RotatedSecret>() } },
      handler: async (i) => {
        const { s, row } = await webhookOf(i);
        const secret = newSecret();
        await setWebhookSecret(ctx.db, s.tenant.id, row.id, ctx.secrets.seal(secret), now());
        return ok({ id: row.id, secret });
      },
    }),
    route({
      method: 'get', path: '/admin/v1/webhooks/:id/deliveries', operationId: 'admin_webhooks_deliveries_list', tag, auth: 'admin',
      summary: "List a webhook endpoint's deliveries",
      query: io(typia.http.createValidateQuery<WebhookDeliveriesQuery>(), typia.json.schema<WebhookDeliveriesQuery>()),
      responses: { 200: { description: 'A page of deliveries, newest first', schema: typia.json.schema<WebhookDelivery[]>() } },
      handler: async (i) => {
        const { row } = await webhookOf(i);
        const { limit, skip } = pageOf(i.query);
        return ok((await listDeliveries(ctx.db, row.id, i.query.status ?? null, limit, skip)).map(deliveryJson));
      },
    }),
    route({
      // Every dead delivery of the endpoint, sent again from the first attempt (after an outage).
      method: 'post', path: '/admin/v1/webhooks/:id/redeliver', operationId: 'admin_webhooks_redeliver_dead', tag, auth: 'admin',
      summary: "Send a webhook endpoint's dead deliveries again",
      description: 'Each starts over with a fresh retry budget (after a receiver outage, say).',
      responses: { 200: { description: 'How many were queued again', schema: typia.json.schema<Redelivered>() } },
      handler: async (i) => {
        const { row } = await webhookOf(i);
        return ok({ redelivered: await redeliverDead(ctx.db, row.id, now()) });
      },
    }),
    route({
      method: 'post', path: '/admin/v1/webhooks/deliveries/:deliveryId/redeliver', operationId: 'admin_webhooks_delivery_redeliver', tag, auth: 'admin',
      summary: 'Send one webhook delivery again',
      description: 'Whatever its state, it is queued now with a fresh retry budget.',
      responses: { 200: { description: 'The delivery, pending again', schema: typia.json.schema<WebhookDelivery>() } },
      handler: async ({ tenant, params }) => {
        const delivery = await redeliver(ctx.db, tenant.id, uuidParam(params.deliveryId, 'deliveryId'), now());
        if (!delivery) throw notFound('Webhook delivery not found');
        return ok(deliveryJson(delivery));
      },
    }),
  ] as const;
}
