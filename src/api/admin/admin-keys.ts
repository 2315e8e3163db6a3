import typia from 'typia';
import type { Ctx } from '../../context';
import { AdminActor, requireAdmin } from '../../auth/auth';
import { ENV_PREFIX_MARK, generateKey } from '../../auth/api-keys';
import { check, jsonBody, uuidParam } from '../../http/body';
import { conflict, notFound, invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { AdminKeyRow, getAdminKey, listAdminKeys, LockedAdminKeys, withAdminKeysLocked } from '../../store/admin-keys';
import type { AdminApiKey, AdminApiKeyWithSecret, CreateAdminKey, PatchAdminKey } from '../../wire/admin';

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

const validateCreate = typia.createValidate<CreateAdminKey>();
const validatePatch = typia.createValidate<PatchAdminKey>();

/**
 * Admin keys with a lifecycle: list, create, rotate, revoke and re-activate,
 * delete. Account-level (Tenant-ID does not apply). Guards against locking
 * everyone out: a request never acts on its own key, and the last active
 * stored key stays (ADMIN_API_KEY is not counted: the variable may go).
 */
export function adminKeyRoutes(ctx: Ctx): Route[] {
  const caller = async (req: Request) => {
    requireAdmin(await ctx.auth.authenticate(req.apiKey));
    return (await ctx.auth.actor(req.apiKey))!;
  };
  /** Run a change to one key under the keys' lock, with the guards every change shares. */
  const change = async <T>(req: Request, me: AdminActor, what: string, fn: (keys: LockedAdminKeys, row: AdminKeyRow) => Promise<T>, revokes: boolean): Promise<T> => {
    const id = uuidParam(req.params[0]!);
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

  return [
    {
      method: 'get',
      pattern: '/admin/v1/admin-api-keys',
      handler: async (req) => {
        await caller(req);
        return reply(200, (await listAdminKeys(ctx.db)).map(keyJson));
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/admin-api-keys/:id',
      handler: async (req) => {
        await caller(req);
        const row = await getAdminKey(ctx.db, uuidParam(req.params[0]!));
        if (!row) throw notFound('Admin API key not found');
        return reply(200, keyJson(row));
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/admin-api-keys',
      body: true,
      handler: async (req) => {
        await caller(req);
        const { name } = check(validateCreate, jsonBody(req));
        const k = generateKey('admin');
        const row = await withAdminKeysLocked(ctx.db, async (keys) => {
          if ((await keys.count()) >= MAX_ADMIN_KEYS) throw invalid(`An instance holds at most ${MAX_ADMIN_KEYS} admin keys: delete one first`);
          return keys.insert({ prefix: k.prefix, secretHash: k.secretHash, created: new Date(ctx.clock.now()), name });
        });
        return reply(201, { ...keyJson(row), key: k.key } satisfies AdminApiKeyWithSecret);
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/admin-api-keys/:id/rotate',
      handler: async (req) => {
        const me = await caller(req);
        const k = generateKey('admin');
        const { old, row } = await change(req, me, 'rotate', async (keys, row) => ({ old: row.prefix, row: await keys.rekey(row.id, k.prefix, k.secretHash) }), false);
        await invalidate(old);
        return reply(200, { ...keyJson(row), key: k.key } satisfies AdminApiKeyWithSecret);
      },
    },
    {
      method: 'patch',
      pattern: '/admin/v1/admin-api-keys/:id',
      body: true,
      handler: async (req) => {
        const me = await caller(req);
        const { status } = check(validatePatch, jsonBody(req));
        const row = await change(req, me, status === 'inactive' ? 'revoke' : 're-activate', (keys, row) => keys.setStatus(row.id, status), status === 'inactive');
        await invalidate(row.prefix);
        return reply(200, keyJson(row));
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/admin-api-keys/:id',
      handler: async (req) => {
        const me = await caller(req);
        const row = await change(req, me, 'delete', async (keys, row) => {
          await keys.delete(row.id);
          return row;
        }, true);
        await invalidate(row.prefix);
        return reply(200, { deleted: [{ id: row.id }], issues: [] });
      },
    },
  ];
}
