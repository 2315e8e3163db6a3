import { randomUUID } from 'node:crypto';
import typia, { tags } from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody } from '../../http/body';
import { reply, Route } from '../../http/server';
import { tx } from '../../store/db';
import { generateKey } from '../../auth/api-keys';
import { AdminIssue, issueFor, parseBatch } from './batch';

interface CreateKey {
  userId: string & tags.MinLength<1> & tags.MaxLength<255>;
}
const validateCreate = typia.createValidate<CreateKey>();

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
          const out: { id: string; userId: string; key: string; prefix: string }[] = [];
          for (const { item } of items) {
            const k = generateKey('application');
            const id = randomUUID();
            await c.query(
              `INSERT INTO api_keys (id, prefix, secret_hash, kind, tenant_id, user_id, created) VALUES ($1, $2, $3, 'application', $4, $5, $6)`,
              [id, k.prefix, k.secretHash, tenant.id, item.userId, new Date(ctx.clock.now())],
            );
            out.push({ id, userId: item.userId, key: k.key, prefix: k.prefix });
          }
          return out;
        });
        return reply(created.length ? 201 : 200, { created, issues });
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/application-api-keys',
      handler: async (req) => {
        await identifyAdmin(ctx, req);
        const ids = idsParam(req.query);
        const { rows } = await ctx.db.query<{ id: string; prefix: string }>(
          `DELETE FROM api_keys WHERE kind = 'application' AND id = ANY($1::uuid[]) RETURNING id, prefix`,
          [ids],
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
