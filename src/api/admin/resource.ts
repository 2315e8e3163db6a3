import type { Pool, PoolClient } from 'pg';
import type { IValidation } from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody, uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import type { Tenant } from '../../store/tenants';
import { AdminIssue, issueAt, issueFor, page, parseBatch } from './batch';
import { configTx } from '../../store/config-tx';
import { tx } from '../../store/db';
import type { AttributeFilter } from '../../wire/admin';

/** A tenant-scoped config table exposed as an Admin API collection. */
export interface Resource<Row> {
  /** Collection path, e.g. `/admin/v1/metrics` or `/admin/v1/points/:systemId/levels`. */
  path: string;
  table: string;
  /** Columns selected for a row. */
  cols: string;
  /** Creation order. */
  order: string;
  /** Singular noun for messages ("Metric"). */
  noun: string;
  json(r: Row): unknown;
  /** For a collection under another resource: the owner's table, our column naming it, its noun. */
  parent?: { table: string; column: string; noun: string };
  /** Rows the scripts never read (webhooks): written in a plain transaction, with no config version bump. */
  plain?: boolean;
}

/** The transaction a resource's writes run in. */
function writeTx<T>(ctx: Ctx, spec: Resource<unknown>, tenant: Tenant, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  return spec.plain ? tx(ctx.db, fn) : configTx(ctx, tenant, fn);
}

/** Where a request's rows live: the tenant, and the owner named in the path (if any). */
export interface Scope {
  tenant: Tenant;
  parentId: string | null;
}

/** Authenticate as admin, resolve the tenant and, for nested collections, the owner (404 when not the tenant's). */
export async function scopeOf(ctx: Ctx, spec: Resource<unknown>, req: Request): Promise<Scope> {
  const tenant = await identifyAdmin(ctx, req);
  if (!spec.parent) return { tenant, parentId: null };
  const parentId = uuidParam(req.params[0]!, spec.parent.column);
  const { rowCount } = await ctx.db.query(`SELECT 1 FROM ${spec.parent.table} WHERE tenant_id = $1 AND id = $2`, [tenant.id, parentId]);
  if (!rowCount) throw notFound(`${spec.parent.noun} not found`);
  return { tenant, parentId };
}

/** `WHERE` clause and parameters selecting a scope's rows; more parameters follow from `$3`. */
function where(spec: Resource<unknown>, s: Scope): { sql: string; params: unknown[] } {
  return spec.parent
    ? { sql: `tenant_id = $1 AND ${spec.parent.column} = $2`, params: [s.tenant.id, s.parentId] }
    : { sql: `tenant_id = $1 AND $2::uuid IS NULL`, params: [s.tenant.id, null] };
}

export async function getRow<Row>(c: Pool | PoolClient, spec: Resource<Row>, s: Scope, id: string): Promise<Row | null> {
  const w = where(spec as Resource<unknown>, s);
  const { rows } = await c.query(`SELECT ${spec.cols} FROM ${spec.table} WHERE ${w.sql} AND id = $3`, [...w.params, id]);
  return (rows[0] as Row | undefined) ?? null;
}

/** A page of a scope's rows, in creation order. */
export async function listRows<Row>(c: Pool | PoolClient, spec: Resource<Row>, s: Scope, limit: number, skip: number): Promise<Row[]> {
  const w = where(spec as Resource<unknown>, s);
  const { rows } = await c.query(`SELECT ${spec.cols} FROM ${spec.table} WHERE ${w.sql} ORDER BY ${spec.order} LIMIT $3 OFFSET $4`, [...w.params, limit, skip]);
  return rows as Row[];
}

/** GET collection (limit/skip), GET one by id, DELETE by `ids`: the same for every config resource. */
export function readDeleteRoutes<Row>(ctx: Ctx, spec: Resource<Row>): Route[] {
  const any = spec as Resource<unknown>;
  return [
    {
      method: 'get',
      pattern: spec.path,
      handler: async (req) => {
        const s = await scopeOf(ctx, any, req);
        const { limit, skip } = page(req.query);
        return reply(200, (await listRows(ctx.db, spec, s, limit, skip)).map(spec.json));
      },
    },
    {
      method: 'get',
      pattern: `${spec.path}/:id`,
      handler: async (req) => {
        const s = await scopeOf(ctx, any, req);
        const row = await getRow(ctx.db, spec, s, uuidParam(req.params[req.params.length - 1]!));
        if (!row) throw notFound(`${spec.noun} not found`);
        return reply(200, spec.json(row));
      },
    },
    {
      method: 'del',
      pattern: spec.path,
      handler: async (req) => {
        const s = await scopeOf(ctx, any, req);
        const ids = idsParam(req.query);
        const w = where(any, s);
        const deleted = await writeTx(ctx, any, s.tenant, async (c) => {
          const { rows } = await c.query<{ id: string }>(
            `DELETE FROM ${spec.table} WHERE ${w.sql} AND id = ANY($3::uuid[]) RETURNING id`,
            [...w.params, ids],
          );
          return rows;
        });
        const gone = new Set(deleted.map((r) => r.id));
        const issues = ids.filter((id) => !gone.has(id)).map((id) => issueFor(id, `${spec.noun} not found`));
        return reply(200, { deleted: deleted.map((r) => ({ id: r.id })), issues });
      },
    },
  ];
}

/**
 * Batch create (POST) or update (PATCH) of a config resource in one config
 * transaction. `apply` writes one item and returns its row, or a message
 * explaining why it was skipped (reported by index on create, by id on update).
 */
export function batchRoute<Item, Row>(
  ctx: Ctx,
  spec: Resource<Row>,
  method: 'post' | 'patch',
  validate: (x: unknown) => IValidation<Item>,
  apply: (c: PoolClient, s: Scope, item: Item) => Promise<Row | string>,
  json: (r: Row) => unknown = spec.json,
): Route {
  return {
    method,
    pattern: spec.path,
    body: true,
    handler: async (req) => {
      const s = await scopeOf(ctx, spec as Resource<unknown>, req);
      const { items, issues } = parseBatch(jsonBody(req), validate);
      const done = await writeTx(ctx, spec as Resource<unknown>, s.tenant, async (c) => {
        const rows: Row[] = [];
        for (const { index, item } of items) {
          // Each item in its own savepoint: a failing one leaves the others applied.
          await c.query('SAVEPOINT item');
          const out = await apply(c, s, item);
          if (typeof out !== 'string') {
            await c.query('RELEASE SAVEPOINT item');
            rows.push(out);
            continue;
          }
          await c.query('ROLLBACK TO SAVEPOINT item');
          if (method === 'post') issues.push(issueAt(index, out));
          else issues.push(issueFor((item as { id: string }).id.toLowerCase(), out));
        }
        return rows;
      });
      if (method === 'patch') return reply(200, { updated: done.map(json), issues });
      const sorted: AdminIssue[] = issues.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      return reply(done.length ? 201 : 200, { created: done.map(json), issues: sorted });
    },
  };
}

/** Attribute filters must name attributes of the tenant, of the right kind. */
export async function attributeFilterProblem(c: PoolClient, s: Scope, filters: AttributeFilter[] | null | undefined, type: 'user' | 'event'): Promise<string | null> {
  if (!filters?.length) return null;
  const ids = filters.map((f) => f.attributeId.toLowerCase());
  const { rows } = await c.query<{ id: string }>('SELECT id FROM attributes WHERE tenant_id = $1 AND type = $2 AND id = ANY($3::uuid[])', [s.tenant.id, type, ids]);
  const known = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !known.has(id));
  return missing.length ? `Unknown ${type} attribute id: ${missing.join(', ')}` : null;
}
