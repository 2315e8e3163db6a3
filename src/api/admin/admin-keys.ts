import typia from 'typia';
import type { Ctx } from '../../context';
import type { AdminActor } from '../../auth/auth';
import { ENV_PREFIX_MARK, generateKey } from '../../auth/api-keys';
import { uuidParam } from '../../http/body';
import { conflict, notFound, invalid } from '../../errors';
import type { Request } from '../../http/server';
import { answer, io, ok, route } from '../define';
import { AdminKeyRow, getAdminKey, listAdminKeys, LockedAdminKeys, withAdminKeysLocked } from '../../store/admin-keys';
import type { AdminApiKey, AdminApiKeyWithSecret, CreateAdminKey, Deleted, PatchAdminKey } from '../../wire/admin';

/** Admin keys an instance may hold, whatever their source or status. */
export const MAX_ADMIN_KEYS = 10;

const keyJson = (r: AdminKeyRow): AdminApiKey => ({
  id: r.id,
  name: r.name ?? '',
  prefix: r.prefix.startsWith(ENV_PREFIX_MARK) ? r.prefix.slice(ENV_PREFIX_MARK.length) : r.prefix,
  status: r.status,
  created: r.created.toISOString(),
  // Written at most once a minute: shown to the minute.
  lastUsed: r.lastUsed ? new Date(Math.floor(r.lastUsed.getTime() / 60_000) * 60_000).toISOString() : null,
  source: r.source,
});

/**
 * Admin keys with a lifecycle: list, create, rotate, revoke and re-activate,
 * delete. Account-level (Tenant-ID does not apply). Guards against locking
 * everyone out: a request never acts on its own key, and the last active
 * stored key stays (ADMIN_API_KEY is not counted: the variable may go).
 */
export function adminKeyRoutes(ctx: Ctx) {
  /** The calling key, as the keys list names it (the definition's `auth` has let only admin keys through). */
  const caller = async (req: Request) => (await ctx.auth.actor(req.apiKey))!;
  /** Run a change to one key under the keys' lock, with the guards every change shares. */
  const change = async <T>(rawId: string, me: AdminActor, what: string, fn: (keys: LockedAdminKeys, row: AdminKeyRow) => Promise<T>, revokes: boolean): Promise<T> => {
    const id = uuidParam(rawId);
    return withAdminKeysLocked(ctx.db, async (keys) => {
      const row = await keys.get(id);
      if (!row) throw notFound('Admin API key not found');
      if (row.source === 'environment') throw conflict(`This key is ADMIN_API_KEY: it is managed by that environment variable, not through the API (cannot ${what} it)`);
      if (row.id === me.id) throw conflict(`A request cannot ${what} the key it is made with: use another admin key`);
      if (revokes && row.status === 'active') {
        if ((await keys.activeStored()) <= 1) throw conflict(`Cannot ${what} the last active admin key (ADMIN_API_KEY is not counted: the variable may be removed)`);
      }
      return fn(keys, row);
    });
  };
  /** Every process drops its cached copy of a changed key (the old prefix, after a rotation). */
  const invalidate = async (prefix: string) => {
    ctx.auth.forget(prefix);
    await ctx.broadcast(`key:${prefix}`);
  };
  const common = { tag: 'Admin: admin keys', auth: 'admin', tenant: false } as const;
  const one = '/admin/v1/admin-api-keys/:id';
  const key = typia.json.schema<AdminApiKey>();
  const withSecret = typia.json.schema<AdminApiKeyWithSecret>();

  return [
    route({
      ...common, method: 'get', path: '/admin/v1/admin-api-keys', operationId: 'admin_admin_api_keys_list',
      summary: 'List admin keys',
      description: 'Every admin key of the instance, oldest first: made through the API, printed at the first start (`bootstrap`), or ADMIN_API_KEY (`environment`, managed by that variable). Never a secret.',
      responses: { 200: { description: 'The keys', schema: typia.json.schema<AdminApiKey[]>() } },
      handler: async () => ok((await listAdminKeys(ctx.db)).map(keyJson)),
    }),
    route({
      ...common, method: 'get', path: one, operationId: 'admin_admin_api_keys_get',
      summary: 'Get an admin key',
      responses: { 200: { description: 'The key', schema: key } },
      handler: async ({ params }) => {
        const row = await getAdminKey(ctx.db, uuidParam(params.id));
        if (!row) throw notFound('Admin API key not found');
        return ok(keyJson(row));
      },
    }),
    route({
      ...common, method: 'post', path: '/admin/v1/admin-api-keys', operationId: 'admin_admin_api_keys_create',
      summary: 'Create an admin key',
      description: `The key is in this response only: it is stored hashed. 422 when the instance already holds ${MAX_ADMIN_KEYS} admin keys.`,
      body: io(typia.createValidate<CreateAdminKey>(), typia.json.schema<CreateAdminKey>()),
      responses: { 201: { description: 'The new key', schema: withSecret } },
      handler: async ({ body }) => {
        const k = generateKey('admin');
        const row = await withAdminKeysLocked(ctx.db, async (keys) => {
          if ((await keys.count()) >= MAX_ADMIN_KEYS) throw invalid(`An instance holds at most ${MAX_ADMIN_KEYS} admin keys: delete one first`);
          return keys.insert({ prefix: k.prefix, secretHash: k.secretHash, created: new Date(ctx.clock.now()), name: body.name });
        });
        return answer(201, { ...keyJson(row), key: k.key });
      },
    }),
    route({
      ...common, method: 'post', path: `${one}/rotate`, operationId: 'admin_admin_api_keys_rotate',
      summary: 'Replace an admin key with a new one',
      description: 'Prefix and body are both new; the old key is refused (401) by every process within a second. 409 for the key the request is made with, or for ADMIN_API_KEY.',
      responses: { 200: { description: 'The new key, in this response only', schema: withSecret } },
      handler: async ({ req, params }) => {
        const me = await caller(req);
        const k = generateKey('admin');
        const { old, row } = await change(params.id, me, 'rotate', async (keys, row) => ({ old: row.prefix, row: await keys.rekey(row.id, k.prefix, k.secretHash) }), false);
        await invalidate(old);
        return ok({ ...keyJson(row), key: k.key });
      },
    }),
    route({
      ...common, method: 'patch', path: one, operationId: 'admin_admin_api_keys_update',
      summary: 'Revoke or re-activate an admin key',
      description: 'The key itself does not change. 409 for the key the request is made with, for ADMIN_API_KEY, and for revoking the last active stored key.',
      body: io(typia.createValidate<PatchAdminKey>(), typia.json.schema<PatchAdminKey>()),
      responses: { 200: { description: 'The key', schema: key } },
      handler: async ({ req, params, body: { status } }) => {
        const me = await caller(req);
        const row = await change(params.id, me, status === 'inactive' ? 'revoke' : 're-activate', (keys, row) => keys.setStatus(row.id, status), status === 'inactive');
        await invalidate(row.prefix);
        return ok(keyJson(row));
      },
    }),
    route({
      ...common, method: 'del', path: one, operationId: 'admin_admin_api_keys_delete',
      summary: 'Delete an admin key for good',
      description: '409 for the key the request is made with, for ADMIN_API_KEY, and for the last active stored key.',
      responses: { 200: { description: 'What was deleted', schema: typia.json.schema<Deleted>() } },
      handler: async ({ req, params }) => {
        const me = await caller(req);
        const row = await change(params.id, me, 'delete', async (keys, row) => {
          await keys.delete(row.id);
          return row;
        }, true);
        await invalidate(row.prefix);
        return ok({ deleted: [{ id: row.id }], issues: [] });
      },
    }),
  ];
}
