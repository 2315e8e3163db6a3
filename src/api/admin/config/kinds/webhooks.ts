import typia from 'typia';
import { WEBHOOK_EVENT_TYPES } from '../../../../webhooks/events';
import type { ConfigWebhook } from '../../../../wire/admin';
import type { PoolClient } from '../../../../store/db';
import { deleteWebhook, webhooksOf } from '../../../../store/webhooks';
import { createWebhook, updateWebhook } from '../../writes/webhooks';
import { byIdentity, identities, Kind, outcome } from '../kind';

/** Rows of one tenant's endpoints with an identity (url, then `#2`… for more to the same url, in creation order). */
async function rowsOf(c: PoolClient, tenantId: string) {
  const rows = await webhooksOf(c, tenantId);
  const ids = identities(rows, (r) => r.url);
  return rows.map((r, i) => ({ id: r.id, identity: ids[i]!, item: { url: r.url, eventTypes: r.event_types, description: r.description, status: r.status } }));
}

/** Webhook endpoints, without their secrets: an updated one keeps its secret, a created one gets a new one. */
export const webhooksKind: Kind<ConfigWebhook> = {
  name: 'webhooks',
  validate: typia.createValidateEquals<ConfigWebhook[]>(),
  async read(c, tenantId) {
    return byIdentity((await rowsOf(c, tenantId)).map((r) => r.item), (w) => w.url);
  },
  normal: (h) => {
    let url = h.url;
    try {
      url = new URL(h.url).toString();
    } catch {
      /* refused on write */
    }
    return { url, eventTypes: WEBHOOK_EVENT_TYPES.filter((t) => h.eventTypes.includes(t)), description: h.description ?? null, status: h.status ?? 'active' };
  },
  identity: (h) => h.url,
  refs: () => [],
  create: async (w, h) => outcome(await createWebhook(w.ctx, w.c, w.scope, h)),
  async update(w, h, _before, identity) {
    const row = (await rowsOf(w.c, w.scope.tenant.id)).find((r) => r.identity === identity);
    return outcome(await updateWebhook(w.ctx, w.c, w.scope, { ...h, id: row!.id }));
  },
  async remove(w, _before, identity) {
    const row = (await rowsOf(w.c, w.scope.tenant.id)).find((r) => r.identity === identity);
    if (row) await deleteWebhook(w.c, row.id);
  },
};
