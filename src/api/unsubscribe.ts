import type { Ctx } from '../context';
import type { Reply } from '../http/server';
import { prebuilt, route } from './define';
import { channelsOf, NOTIFICATION_TYPES, NotificationType, RETENTION_DEFAULTS } from '../domain/retention';
import { prefField } from '../domain/user-hash';
import { userHash } from '../engine';
import { writeUserFields } from '../services/user-calls';
import { notFound } from '../errors';
import type { UnsubscribeLinks } from '../messages/unsubscribe';
import type { Tenant } from '../store/tenants';
import type { NotificationChannel } from '../wire/app';

const LABELS: Record<NotificationType, string> = {
  achievement_completed: 'Achievements unlocked',
  recap: 'Recaps',
  reactivation: 'We-miss-you messages',
  streak_reminder: 'Streak reminders',
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(status: number, title: string, body: string): Reply {
  return {
    status,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.4rem;text-align:left;border-bottom:1px solid #ddd}button{margin-top:1rem;padding:.5rem 1rem}</style>
</head><body><h1>${esc(title)}</h1>${body}</body></html>`,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      // The token in the URL is the user's permission: never sent on to another site.
      'Referrer-Policy': 'no-referrer',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    },
  };
}

/** The one error shape of every route (a forged link, or a user erased since). */
const invalidLink = () => notFound('This link is not valid, or the account it was for no longer exists');

/**
 * The links in every email (`{PUBLIC_URL}/u/{token}`), open without an API
 * key: the signed token is the permission. `POST` is RFC 8058's one-click
 * unsubscribe from that type's emails; `GET` shows the user's notification
 * preferences, saved by `POST /u/{token}/preferences` (the same preferences
 * as `PATCH /v1/users/{id}/preferences`).
 */
export function unsubscribeRoutes(ctx: Ctx, links: UnsubscribeLinks) {
  /** The link's tenant, user and their hash, or null when the link is forged or the user gone. */
  const open = async (token: string) => {
    const target = await links.verify(token);
    if (!target) return null;
    const tenant = await ctx.tenants.getById(target.tenantId);
    if (!tenant) return null;
    const fields = await userHash(ctx.redis, ctx.keys.tenant(tenant.slot), target.userId);
    return fields ? { target, tenant, fields } : null;
  };
  const channelsNow = async (tenant: Tenant, fields: Map<string, string>, type: NotificationType) =>
    channelsOf((await ctx.configs.get(tenant)).retention ?? RETENTION_DEFAULTS, fields, type);

  const preferencesPage = async (token: string, tenant: Tenant, fields: Map<string, string>, note: string) => {
    const rows: string[] = [];
    for (const t of NOTIFICATION_TYPES) {
      const on = await channelsNow(tenant, fields, t);
      const box = (c: NotificationChannel) =>
        `<td><input type="checkbox" name="${t}" value="${c}" aria-label="${esc(`${LABELS[t]} by ${c}`)}"${on.includes(c) ? ' checked' : ''}></td>`;
      rows.push(`<tr><td>${esc(LABELS[t])}</td>${box('email')}${box('push')}</tr>`);
    }
    return page(200, 'Notification preferences', `${note}<form method="post" action="/u/${esc(token)}/preferences">
<table><thead><tr><th>Message</th><th>Email</th><th>Push</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<button type="submit">Save</button></form>`);
  };

  const tag = 'Unsubscribe';
  return [
    route({
      method: 'get', path: '/u/:token', operationId: 'unsubscribe_page', tag, auth: 'none',
      summary: "An email's preferences link: a page where the user switches each type on or off (HTML)",
      responses: { 200: { description: 'The page (HTML); 404 for a link not valid' } },
      handler: async ({ params: { token } }) => {
        const o = await open(token);
        if (!o) throw invalidLink();
        return prebuilt(await preferencesPage(token, o.tenant, o.fields, ''));
      },
    }),
    route({
      method: 'post', path: '/u/:token', operationId: 'unsubscribe_one_click', tag, auth: 'none', form: true,
      summary: "One-click unsubscribe (RFC 8058): no more emails of the link's type to this user",
      description: 'Push and the other types are unchanged. The body (`List-Unsubscribe=One-Click`) is not needed.',
      responses: { 200: { description: 'Unsubscribed (an HTML page)' } },
      maxBodyBytes: 4096,
      handler: async ({ params: { token } }) => {
        const o = await open(token);
        if (!o) throw invalidLink();
        const { target, tenant, fields } = o;
        const kept = (await channelsNow(tenant, fields, target.type)).filter((c) => c !== 'email');
        await writeUserFields(ctx, tenant, target.userId, { [prefField(target.type)]: kept.join(',') });
        return prebuilt(page(200, 'Unsubscribed', `<p>You will get no more ${esc(LABELS[target.type].toLowerCase())} by email.</p>
<p><a href="/u/${esc(token)}">Change your other notification preferences</a></p>`));
      },
    }),
    route({
      method: 'post', path: '/u/:token/preferences', operationId: 'unsubscribe_preferences_save', tag, auth: 'none', form: true,
      summary: "The preferences page's form (application/x-www-form-urlencoded: each type's name once per channel chosen)",
      responses: { 200: { description: 'The page again, saved (HTML)' } },
      maxBodyBytes: 4096,
      handler: async ({ req, params: { token } }) => {
        const o = await open(token);
        if (!o) throw invalidLink();
        const form = new URLSearchParams(req.body.toString('utf8'));
        const patch: Record<string, string> = {};
        for (const t of NOTIFICATION_TYPES) {
          const chosen = new Set(form.getAll(t));
          patch[prefField(t)] = (['email', 'push'] as const).filter((c) => chosen.has(c)).join(',');
        }
        const fields = await writeUserFields(ctx, o.tenant, o.target.userId, patch);
        return prebuilt(await preferencesPage(token, o.tenant, fields, '<p role="status">Saved.</p>'));
      },
    }),
  ];
}
