import typia from 'typia';
import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { invalid, notFound } from '../../errors';
import { reply, Route } from '../../http/server';
import type { WebhookEventType } from '../../webhooks/events';
import { newSecret } from '../../webhooks/signing';
import type {
  WebhookWithSecret, PatchWebhook, Redelivered, RotatedSecret, WebhookDelivery, WebhookDeliveryStatus, WebhookFields,
} from '../../wire/admin';
import { page } from './batch';
import { batchRoute, getRow, readDeleteRoutes, Resource, scopeOf } from './resource';
import { createWebhook, updateWebhook, webhookJson, WEBHOOKS } from './writes/webhooks';

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  type: WebhookEventType;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  created: Date;
  delivered_at: Date | null;
}
const DELIVERY_COLS = `id, webhook_id, event_id, type, payload, status, attempts, next_attempt_at, last_attempt_at, last_status, last_error,
  created, delivered_at`;
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const deliveryJson = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  eventId: r.event_id,
  type: r.type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
  lastAttemptAt: iso(r.last_attempt_at),
  lastStatus: r.last_status,
  lastError: r.last_error,
  created: r.created.toISOString(),
  deliveredAt: iso(r.delivered_at),
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
        await ctx.db.query('UPDATE webhooks SET secret = $3, updated = $4 WHERE tenant_id = $1 AND id = $2', [s.tenant.id, row.id, ctx.secrets.seal(secret), now()]);
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
        const { rows } = await ctx.db.query<DeliveryRow>(
          `SELECT ${DELIVERY_COLS} FROM webhook_deliveries WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2)
           ORDER BY created DESC, id LIMIT $3 OFFSET $4`,
          [row.id, status, limit, skip],
        );
        return reply(200, rows.map(deliveryJson));
      },
    },
    {
      // Every dead delivery of the endpoint, sent again from the first attempt (after an outage).
      method: 'post',
      pattern: '/admin/v1/webhooks/:id/redeliver',
      handler: async (req) => {
        const { row } = await webhookOf(req);
        const { rowCount } = await ctx.db.query(
          `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2 WHERE webhook_id = $1 AND status = 'dead'`,
          [row.id, now()],
        );
        return reply(200, { redelivered: rowCount ?? 0 } satisfies Redelivered);
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/webhooks/deliveries/:deliveryId/redeliver',
      handler: async (req) => {
        const s = await scopeOf(ctx, WEBHOOKS as Resource<unknown>, req);
        const { rows } = await ctx.db.query<DeliveryRow>(
          `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $3
           WHERE tenant_id = $1 AND id = $2 RETURNING ${DELIVERY_COLS}`,
          [s.tenant.id, uuidParam(req.params[0]!, 'deliveryId'), now()],
        );
        if (!rows[0]) throw notFound('Webhook delivery not found');
        return reply(200, deliveryJson(rows[0]));
      },
    },
  ];
}
