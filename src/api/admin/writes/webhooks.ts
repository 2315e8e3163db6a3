import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../../../webhooks/events';
import { newSecret } from '../../../webhooks/signing';
import { insertWebhook, updateWebhookRow, WEBHOOK_COLS, WebhookRow } from '../../../store/webhooks';
import type { AdminWebhook, PatchWebhook, WebhookFields } from '../../../wire/admin';
import { getRow, Resource, Scope } from '../resource';

// Webhook endpoint writes, shared by the Admin API and the configuration document.

// The secret is never shown again after creation (or rotation).
export const webhookJson = (r: WebhookRow): AdminWebhook => ({
  id: r.id, url: r.url, description: r.description, eventTypes: r.event_types, status: r.status,
  created: r.created.toISOString(), updated: r.updated.toISOString(),
});
export const WEBHOOKS: Resource<WebhookRow, AdminWebhook> = {
  path: '/admin/v1/webhooks',
  table: 'webhooks',
  cols: WEBHOOK_COLS,
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
  const w = { url: url.url, description: item.description ?? null, event_types: normalTypes(item.eventTypes), status: item.status ?? 'active' };
  return { ...(await insertWebhook(c, tenant.id, randomUUID(), w, ctx.secrets.seal(secret), new Date(ctx.clock.now()))), secret };
}

export async function updateWebhook(ctx: Ctx, c: PoolClient, s: Scope, item: PatchWebhook): Promise<WebhookRow | string> {
  const row = await getRow(c, WEBHOOKS, s, item.id.toLowerCase());
  if (!row) return 'Webhook not found';
  const url = checkUrl(item.url ?? row.url);
  if (typeof url === 'string') return url;
  return updateWebhookRow(c, s.tenant.id, row.id, {
    url: url.url, description: item.description !== undefined ? item.description : row.description,
    event_types: item.eventTypes ? normalTypes(item.eventTypes) : row.event_types, status: item.status ?? row.status,
  }, new Date(ctx.clock.now()));
}
