import { randomUUID } from 'node:crypto';
import typia from 'typia';
import type { Ctx } from '../../context';
import { idsParam } from '../../http/body';
import { answer, ok, route } from '../define';
import { deleteApplicationKeys, insertApplicationKeys, NewApplicationKey, setApplicationKeyLimits } from '../../store/application-keys';
import { generateKey } from '../../auth/api-keys';
import { defaultBurst } from '../../auth/rate-limit';
import { batchIo, deletedOf, issueFor } from './batch';
import type {
  ApplicationKey, Batch, CreateKey, Created, Deleted, IdsQuery, RateLimit, RateLimitInput, UpdateKey, Updated, UpdatedKey,
} from '../../wire/admin';

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
export function apiKeyRoutes(ctx: Ctx) {
  const common = { path: '/admin/v1/application-api-keys', tag: 'Admin: keys', auth: 'admin' } as const;
  return [
    route({
      ...common, method: 'post', operationId: 'admin_application_api_keys_create',
      summary: 'Create application keys, each limited to one user',
      description: 'The secret is in the response only: it is stored hashed.',
      body: batchIo(validateCreate, typia.json.schema<Batch<CreateKey>>()),
      responses: {
        201: { description: 'The keys', schema: typia.json.schema<Created<ApplicationKey>>() },
        200: { description: 'None were created: every item is an issue', schema: typia.json.schema<Created<ApplicationKey>>() },
      },
      handler: async ({ tenant, body }) => {
        const { items, issues } = body;
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
        return answer(created.length ? 201 : 200, { created, issues });
      },
    }),
    route({
      // Laurel's own: change keys' rate limits (the new limit applies at once in every process).
      ...common, method: 'patch', operationId: 'admin_application_api_keys_update',
      summary: "Set application keys' rate limits (by id)",
      description: 'A new limit applies at once, in every process.',
      body: batchIo(validateUpdate, typia.json.schema<Batch<UpdateKey>>()),
      responses: { 200: { description: 'What was updated, and ids not found', schema: typia.json.schema<Updated<UpdatedKey>>() } },
      handler: async ({ tenant, body }) => {
        const { items, issues } = body;
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
        return ok({ updated, issues });
      },
    }),
    route({
      ...common, method: 'del', operationId: 'admin_application_api_keys_delete',
      summary: 'Revoke application keys (by id)',
      // `ids` may also come comma-separated, which a typia query type cannot read.
      queryDoc: typia.json.schema<IdsQuery>(),
      responses: { 200: { description: 'What was revoked, and ids not found', schema: typia.json.schema<Deleted>() } },
      handler: async ({ tenant, req }) => {
        const ids = idsParam(req.query);
        const rows = await deleteApplicationKeys(ctx.db, tenant.id, ids);
        for (const r of rows) {
          ctx.auth.forget(r.prefix);
          await ctx.broadcast(`key:${r.prefix}`);
        }
        return ok(deletedOf(ids, rows.map((r) => r.id), 'Application API key not found'));
      },
    }),
  ];
}
