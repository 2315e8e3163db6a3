import type { Pool, PoolClient } from 'pg';
import type { WebhookEvent, WebhookEventType } from './events';
import type { MessageChannel } from '../wire/admin';
import { ACTIVE_CHANNELS } from '../store/messages';

/** The event types some active endpoint of the tenant ($1) wants, as SQL (here and in deliveryTargets). */
const SUBSCRIBED_TYPES = `SELECT DISTINCT unnest(event_types) AS t FROM webhooks WHERE tenant_id = $1 AND status = 'active'`;

/** The event types some active endpoint of the tenant wants. */
export async function subscribedTypes(c: Pool | PoolClient, tenantId: string): Promise<Set<WebhookEventType>> {
  const { rows } = await c.query<{ t: WebhookEventType }>(SUBSCRIBED_TYPES, [tenantId]);
  return new Set(rows.map((r) => r.t));
}

/** What a tenant's changes may be sent to: the event types some active endpoint wants, and the active message channels. */
export interface DeliveryTargets {
  wanted: Set<WebhookEventType>;
  active: Set<MessageChannel>;
}

/** A tenant's DeliveryTargets in one round trip, since the flusher asks once a batch. */
export async function deliveryTargets(c: Pool | PoolClient, tenantId: string): Promise<DeliveryTargets> {
  const { rows } = await c.query<{ w: WebhookEventType | null; m: MessageChannel | null }>({
    name: 'delivery-targets',
    text: `SELECT t AS w, NULL AS m FROM (${SUBSCRIBED_TYPES}) s UNION ALL SELECT NULL, channel FROM (${ACTIVE_CHANNELS}) c`,
    values: [tenantId],
  });
  const wanted = new Set<WebhookEventType>();
  const active = new Set<MessageChannel>();
  for (const r of rows) {
    if (r.w !== null) wanted.add(r.w);
    if (r.m !== null) active.add(r.m);
  }
  return { wanted, active };
}

const INSERT = `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, type, payload, next_attempt_at, created)
  SELECT gen_random_uuid(), $1, w.id, x.id, x.type, x.payload, to_timestamp(x.due / 1000.0), to_timestamp($3 / 1000.0)
  FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, type text, payload text, due bigint)
  JOIN webhooks w ON w.tenant_id = $1 AND w.status = 'active' AND x.type = ANY(w.event_types)
  ON CONFLICT (webhook_id, event_id) DO `;

/**
 * Write one outbox row per event and subscribed endpoint, in the caller's
 * transaction, so an event is queued exactly when the change it reports is
 * committed. Writing the same event again adds nothing; a coalescing event
 * not yet attempted takes the newer body.
 */
export async function enqueue(c: PoolClient, tenantId: string, events: WebhookEvent[], now: number): Promise<void> {
  const once = events.filter((e) => !e.coalesce);
  // One row per id: an UPSERT may not touch the same row twice in one statement.
  const latest = [...new Map(events.filter((e) => e.coalesce).map((e) => [e.id, e])).values()];
  if (once.length) await c.query(`${INSERT} NOTHING`, [tenantId, JSON.stringify(once), now]);
  if (latest.length) {
    await c.query(
      `${INSERT} UPDATE SET payload = excluded.payload
       WHERE webhook_deliveries.status = 'pending' AND webhook_deliveries.attempts = 0`,
      [tenantId, JSON.stringify(latest), now],
    );
  }
}
