import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../../../webhooks/events';
import { newSecret } from '../../../webhooks/signing';
import type { AdminWebhook, PatchWebhook, WebhookFields, WebhookStatus } from '../../../wire/admin';
import { getRow, Resource, Scope } from '../resource';

// Webhook endpoint writes, shared by the Admin API and the configuration document.

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

export const COLS = 'id, url, description, event_types, status, secret, created, updated';
// The secret is never shown again after creation (or rotation).
export const webhookJson = (r: WebhookRow): AdminWebhook => ({
  id: r.id, url: r.url, description: r.description, eventTypes: r.event_types, status: r.status,
  created: r.created.toISOString(), updated: r.updated.toISOString(),
});
export const WEBHOOKS: Resource<WebhookRow> = {
  path: '/admin/v1/webhooks',
  table: 'webhooks',
  cols: COLS,
  order: 'seq',
  noun: 'Webhook',
  plain: true,
  json: webhookJson,
};

/** The endpoint's URL as stored, or why it is refused. */
function checkUrl(raw: string): { url: string } | string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'url must be an absolute http or https URL';
  return { url: u.toString() };
}

/** Each type once, in the documented order. */
const normalTypes = (types: WebhookEventType[]) => WEBHOOK_EVENT_TYPES.filter((t) => types.includes(t));

/** A new endpoint: its secret is stored sealed (ctx.secrets) and answered in the clear this once. */
export async function createWebhook(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: WebhookFields): Promise<WebhookRow | string> {
  const url = checkUrl(item.url);
  if (typeof url === 'string') return url;
  const secret = newSecret();
  const { rows } = await c.query<WebhookRow>(
    `INSERT INTO webhooks (id, tenant_id, url, description, event_types, status, secret, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLS}`,
    [randomUUID(), tenant.id, url.url, item.description ?? null, normalTypes(item.eventTypes), item.status ?? 'active', ctx.secrets.seal(secret), new Date(ctx.clock.now())],
  );
  return { ...rows[0]!, secret };
}

export async function updateWebhook(ctx: Ctx, c: PoolClient, s: Scope, item: PatchWebhook): Promise<WebhookRow | string> {
  const row = await getRow(c, WEBHOOKS, s, item.id.toLowerCase());
  if (!row) return 'Webhook not found';
  const url = checkUrl(item.url ?? row.url);
  if (typeof url === 'string') return url;
  const { rows } = await c.query<WebhookRow>(
    `UPDATE webhooks SET url = $3, description = $4, event_types = $5, status = $6, updated = $7
     WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
    [
      s.tenant.id, row.id, url.url, item.description !== undefined ? item.description : row.description,
      item.eventTypes ? normalTypes(item.eventTypes) : row.event_types, item.status ?? row.status, new Date(ctx.clock.now()),
    ],
  );
  return rows[0]!;
}
