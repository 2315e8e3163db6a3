import type { PoolClient } from 'pg';
import type { WebhookEventType } from '../webhooks/events';
import type { WebhookStatus } from '../wire/admin';

// The webhooks table: the tenant's endpoints, each with its sealed signing
// secret (its deliveries: store/webhook-deliveries.ts).

export interface WebhookRow {
  id: string;
  url: string;
  description: string | null;
  event_types: WebhookEventType[];
  status: WebhookStatus;
  /** Sealed (ctx.secrets), except in the reply to its creation. */
  secret: string;
  created: Date;
  updated: Date;
}

export const WEBHOOK_COLS = 'id, url, description, event_types, status, secret, created, updated';

/** What a write sets besides the secret. */
export type WebhookColumns = Pick<WebhookRow, 'url' | 'description' | 'event_types' | 'status'>;

export async function insertWebhook(c: PoolClient, tenantId: string, id: string, w: WebhookColumns, sealed: string, now: Date): Promise<WebhookRow> {
  const { rows } = await c.query<WebhookRow>(
    `INSERT INTO webhooks (id, tenant_id, url, description, event_types, status, secret, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${WEBHOOK_COLS}`,
    [id, tenantId, w.url, w.description, w.event_types, w.status, sealed, now],
  );
  return rows[0]!;
}

export async function updateWebhookRow(c: PoolClient, tenantId: string, id: string, w: WebhookColumns, now: Date): Promise<WebhookRow> {
  const { rows } = await c.query<WebhookRow>(
    `UPDATE webhooks SET url = $3, description = $4, event_types = $5, status = $6, updated = $7
     WHERE tenant_id = $1 AND id = $2 RETURNING ${WEBHOOK_COLS}`,
    [tenantId, id, w.url, w.description, w.event_types, w.status, now],
  );
  return rows[0]!;
}

/** The tenant's endpoints without their secrets, in creation order. */
export async function webhooksOf(c: PoolClient, tenantId: string): Promise<(WebhookColumns & { id: string })[]> {
  const { rows } = await c.query<WebhookColumns & { id: string }>(
    'SELECT id, url, description, event_types, status FROM webhooks WHERE tenant_id = $1 ORDER BY seq',
    [tenantId],
  );
  return rows;
}

export async function deleteWebhook(c: PoolClient, id: string): Promise<void> {
  await c.query('DELETE FROM webhooks WHERE id = $1', [id]);
}
