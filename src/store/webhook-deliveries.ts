import type { Pool } from 'pg';
import type { WebhookEventType } from '../webhooks/events';
import type { WebhookDeliveryStatus } from '../wire/admin';

/** A delivery of one event to one endpoint, as stored. */
export interface DeliveryRow {
  id: string;
  webhookId: string;
  eventId: string;
  type: WebhookEventType;
  /** The JSON sent. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  created: Date;
  deliveredAt: Date | null;
}

const COLS = `id, webhook_id AS "webhookId", event_id AS "eventId", type, payload, status, attempts, next_attempt_at AS "nextAttemptAt",
  last_attempt_at AS "lastAttemptAt", last_status AS "lastStatus", last_error AS "lastError", created, delivered_at AS "deliveredAt"`;

/** An endpoint's deliveries, newest first, all or those in one status. */
export async function listDeliveries(
  db: Pool, webhookId: string, status: WebhookDeliveryStatus | null, limit: number, skip: number,
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${COLS} FROM webhook_deliveries WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2)
     ORDER BY created DESC, id LIMIT $3 OFFSET $4`,
    [webhookId, status, limit, skip],
  );
  return rows;
}

/** Send every dead delivery of an endpoint again, from the first attempt, at `at`; answers how many. */
export async function redeliverDead(db: Pool, webhookId: string, at: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2 WHERE webhook_id = $1 AND status = 'dead'`,
    [webhookId, at],
  );
  return rowCount ?? 0;
}

/** Send one of the tenant's deliveries again, from the first attempt, at `at`; null when there is no such delivery. */
export async function redeliver(db: Pool, tenantId: string, id: string, at: Date): Promise<DeliveryRow | null> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $3
     WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
    [tenantId, id, at],
  );
  return rows[0] ?? null;
}

/** Replace an endpoint's signing secret (sealed by the caller). */
export async function setWebhookSecret(db: Pool, tenantId: string, webhookId: string, sealed: string, updated: Date): Promise<void> {
  await db.query('UPDATE webhooks SET secret = $3, updated = $4 WHERE tenant_id = $1 AND id = $2', [tenantId, webhookId, sealed, updated]);
}
