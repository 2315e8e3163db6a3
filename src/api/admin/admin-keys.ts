import { randomUUID } from 'node:crypto';
import typia from 'typia';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../context';
import { AdminActor, requireAdmin } from '../../auth/auth';
import { ENV_PREFIX_MARK, generateKey } from '../../auth/api-keys';
import { check, jsonBody, uuidParam } from '../../http/body';
import { conflict, notFound, invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { tx } from '../../store/db';
import type { AdminApiKey, AdminApiKeyWithSecret, CreateAdminKey, PatchAdminKey } from '../../wire/admin';

/** Admin keys an instance may hold, whatever their source or status. */
export const MAX_ADMIN_KEYS = 10;

interface Row {
  id: string;
  name: string | null;
  prefix: string;
  status: 'active' | 'inactive';
  created: Date;
  last_used: Date | null;
  source: 'api' | 'bootstrap' | 'environment';
}

const COLS = 'id, name, prefix, status, created, last_used, source';

const keyJson = (r: Row): AdminApiKey => ({
  id: r.id,
  name: r.name ?? '',
  prefix: r.prefix.startsWith(ENV_PREFIX_MARK) ? r.prefix.slice(ENV_PREFIX_MARK.length) : r.prefix,
  status: r.status,
  created: r.created.toISOString(),
  // Written at most once a minute: shown to the minute.
  lastUsed: r.last_used ? new Date(Math.floor(r.last_used.getTime() / 60_000) * 60_000).toISOString() : null,
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
  const change = async <T>(req: Request, me: AdminActor, what: string, fn: (c: PoolClient, row: Row) => Promise<T>, revokes: boolean): Promise<T> => {
    const id = uuidParam(req.params[0]!);
    return tx(ctx.db, async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-admin-key'))`);
      const { rows } = await c.query<Row>(`SELECT ${COLS} FROM api_keys WHERE kind = 'admin' AND id = $1`, [id]);
      const row = rows[0];
      if (!row) throw notFound('Admin API key not found');
      if (row.source === 'environment') throw conflict(`This key is ADMIN_API_KEY: it is managed by that environment variable, not through the API (cannot ${what} it)`);
      if (row.id === me.id) throw conflict(`A request cannot ${what} the key it is made with: use another admin key`);
      if (revokes && row.status === 'active') {
        const { rows: active } = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM api_keys WHERE kind = 'admin' AND status = 'active' AND source <> 'environment'`,
        );
        if (active[0]!.n <= 1) throw conflict(`Cannot ${what} the last active admin key (ADMIN_API_KEY is not counted: the variable may be removed)`);
      }
      return fn(c, row);
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
        const { rows } = await ctx.db.query<Row>(`SELECT ${COLS} FROM api_keys WHERE kind = 'admin' ORDER BY created, id`);
        return reply(200, rows.map(keyJson));
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/admin-api-keys/:id',
      handler: async (req) => {
        await caller(req);
        const { rows } = await ctx.db.query<Row>(`SELECT ${COLS} FROM api_keys WHERE kind = 'admin' AND id = $1`, [uuidParam(req.params[0]!)]);
        if (!rows[0]) throw notFound('Admin API key not found');
        return reply(200, keyJson(rows[0]));
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
        const row = await tx(ctx.db, async (c) => {
          await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-admin-key'))`);
          const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE kind = 'admin'`);
          if (rows[0]!.n >= MAX_ADMIN_KEYS) throw invalid(`An instance holds at most ${MAX_ADMIN_KEYS} admin keys: delete one first`);
          const { rows: made } = await c.query<Row>(
            `INSERT INTO api_keys (id, prefix, secret_hash, kind, created, name, source) VALUES ($1, $2, $3, 'admin', $4, $5, 'api') RETURNING ${COLS}`,
            [randomUUID(), k.prefix, k.secretHash, new Date(ctx.clock.now()), name],
          );
          return made[0]!;
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
        const { old, row } = await change(req, me, 'rotate', async (c, row) => {
          const { rows } = await c.query<Row>(`UPDATE api_keys SET prefix = $2, secret_hash = $3 WHERE id = $1 RETURNING ${COLS}`, [row.id, k.prefix, k.secretHash]);
          return { old: row.prefix, row: rows[0]! };
        }, false);
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
        const row = await change(req, me, status === 'inactive' ? 'revoke' : 're-activate', async (c, row) => {
          const { rows } = await c.query<Row>(`UPDATE api_keys SET status = $2 WHERE id = $1 RETURNING ${COLS}`, [row.id, status]);
          return rows[0]!;
        }, status === 'inactive');
        await invalidate(row.prefix);
        return reply(200, keyJson(row));
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/admin-api-keys/:id',
      handler: async (req) => {
        const me = await caller(req);
        const row = await change(req, me, 'delete', async (c, row) => {
          await c.query('DELETE FROM api_keys WHERE id = $1', [row.id]);
          return row;
        }, true);
        await invalidate(row.prefix);
        return reply(200, { deleted: [{ id: row.id }], issues: [] });
      },
    },
  ];
}
