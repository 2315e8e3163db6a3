import { randomUUID } from 'node:crypto';
import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody } from '../../http/body';
import { reply, Route } from '../../http/server';
import { tx } from '../../store/db';
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
        const created = await tx(ctx.db, async (c) => {
          const out: ApplicationKey[] = [];
          for (const { item } of items) {
            const k = generateKey('application');
            const id = randomUUID();
            const [rate, burst] = limitColumns(item.rateLimit);
            await c.query(
              `INSERT INTO api_keys (id, prefix, secret_hash, kind, tenant_id, user_id, created, rate_limit, rate_burst)
               VALUES ($1, $2, $3, 'application', $4, $5, $6, $7, $8)`,
              [id, k.prefix, k.secretHash, tenant.id, item.userId, new Date(ctx.clock.now()), rate, burst],
            );
            // Trophy's shape, plus the limit only when one was asked for.
            out.push({ id, userId: item.userId, key: k.key, prefix: k.prefix, ...(item.rateLimit ? { rateLimit: limitJson(rate, burst) } : {}) });
          }
          return out;
        });
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
        const updated = await tx(ctx.db, async (c) => {
          const out: UpdatedKey[] = [];
          for (const { item } of items) {
            const id = item.id.toLowerCase();
            const [rate, burst] = limitColumns(item.rateLimit);
            const { rows } = await c.query<{ prefix: string; user_id: string }>(
              `UPDATE api_keys SET rate_limit = $2, rate_burst = $3 WHERE kind = 'application' AND id = $1 AND tenant_id = $4 RETURNING prefix, user_id`,
              [id, rate, burst, tenant.id],
            );
            if (rows[0]) out.push({ id, userId: rows[0].user_id, prefix: rows[0].prefix, rateLimit: limitJson(rate, burst) });
            else issues.push(issueFor(id, 'Application API key not found'));
          }
          return out;
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
        const { rows } = await ctx.db.query<{ id: string; prefix: string }>(
          `DELETE FROM api_keys WHERE kind = 'application' AND id = ANY($1::uuid[]) AND tenant_id = $2 RETURNING id, prefix`,
          [ids, tenant.id],
        );
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
