import { randomUUID } from 'node:crypto';
import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody } from '../../http/body';
import { reply, Route } from '../../http/server';
import { deleteApplicationKeys, insertApplicationKeys, NewApplicationKey, setApplicationKeyLimits } from '../../store/application-keys';
import { generateKey } from '../../auth/api-keys';
import { defaultBurst } from '../../auth/rate-limit';
import { AdminIssue, issueFor, parseBatch } from './batch';
import type { ApplicationKey, CreateKey, RateLimit, RateLimitInput, UpdateKey, UpdatedKey } from '../../wire/admin';

const validateCreate = typia.createValidate<CreateKey>();
const validateUpdate = typia.createValidate<UpdateKey>();

/** Columns (rate_limit, rate_burst) for a requested limit: the burst is stored explicitly. */
function limitColumns(r: RateLimitInput | null | undefined): [number | null, number | null] {
  if (!r) return [null, null];
  if (r.perSecond === 0) return [0, null];
  return [r.perSecond, r.burst ?? defaultBurst(r.perSecond)];
}
const limitJson = (rate: number | null, burst: number | null): RateLimit | null => (rate === null ? null : { perSecond: rate, burst });

/** User-scoped application keys; the secret is shown once, only its hash is kept. */
export function apiKeyRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'post',
      pattern: '/admin/v1/application-api-keys',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { items, issues } = parseBatch(jsonBody(req), validateCreate);
        const created: ApplicationKey[] = [];
        const rows: NewApplicationKey[] = [];
        for (const { item } of items) {
          const k = generateKey('application');
          const id = randomUUID();
          const [rate, burst] = limitColumns(item.rateLimit);
          rows.push({ id, prefix: k.prefix, secretHash: k.secretHash, userId: item.userId, rate, burst });
          // Trophy's shape, plus the limit only when one was asked for.
          created.push({ id, userId: item.userId, key: k.key, prefix: k.prefix, ...(item.rateLimit ? { rateLimit: limitJson(rate, burst) } : {}) });
        }
        await insertApplicationKeys(ctx.db, tenant.id, new Date(ctx.clock.now()), rows);
        return reply(created.length ? 201 : 200, { created, issues });
      },
    },
    {
      // Laurel's own: change keys' rate limits (the new limit applies at once in every process).
      method: 'patch',
      pattern: '/admin/v1/application-api-keys',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { items, issues } = parseBatch(jsonBody(req), validateUpdate);
        const changes = items.map(({ item }) => {
          const [rate, burst] = limitColumns(item.rateLimit);
          return { id: item.id.toLowerCase(), rate, burst };
        });
        const found = await setApplicationKeyLimits(ctx.db, tenant.id, changes);
        const updated: UpdatedKey[] = [];
        changes.forEach(({ id, rate, burst }, i) => {
          const k = found[i];
          if (k) updated.push({ id, userId: k.userId, prefix: k.prefix, rateLimit: limitJson(rate, burst) });
          else issues.push(issueFor(id, 'Application API key not found'));
        });
        for (const k of updated) {
          ctx.auth.forget(k.prefix);
          await ctx.broadcast(`key:${k.prefix}`);
        }
        return reply(200, { updated, issues });
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/application-api-keys',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const ids = idsParam(req.query);
        const rows = await deleteApplicationKeys(ctx.db, tenant.id, ids);
        for (const r of rows) {
          ctx.auth.forget(r.prefix);
          await ctx.broadcast(`key:${r.prefix}`);
        }
        const gone = new Set(rows.map((r) => r.id));
        const issues: AdminIssue[] = ids.filter((id) => !gone.has(id)).map((id) => issueFor(id, 'Application API key not found'));
        return reply(200, { deleted: rows.map((r) => ({ id: r.id })), issues });
      },
    },
  ];
}
