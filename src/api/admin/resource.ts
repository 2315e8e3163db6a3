import type { Pool, PoolClient } from 'pg';
import type { IValidation } from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody, uuidParam } from '../../http/body';
import { notFound } from '../../http/errors';
import { reply, Route } from '../../http/server';
import type { Tenant } from '../../store/tenants';
import { AdminIssue, issueAt, issueFor, page, parseBatch } from './batch';
import { configTx } from './config-tx';

/** A tenant-scoped config table exposed as an Admin API collection. */
export interface Resource<Row> {
  /** Collection path, e.g. `/admin/v1/metrics`. */
  path: string;
  table: string;
  /** Columns selected for a row. */
  cols: string;
  /** Creation order. */
  order: string;
  /** Singular noun for messages ("Metric"). */
  noun: string;
  json(r: Row): unknown;
}

export async function getRow<Row>(c: Pool | PoolClient, spec: Resource<Row>, tenant: Tenant, id: string): Promise<Row | null> {
  const { rows } = await c.query(`SELECT ${spec.cols} FROM ${spec.table} WHERE tenant_id = $1 AND id = $2`, [tenant.id, id]);
  return (rows[0] as Row | undefined) ?? null;
}

/** GET collection (limit/skip), GET one by id, DELETE by `ids`: the same for every config resource. */
export function readDeleteRoutes<Row>(ctx: Ctx, spec: Resource<Row>): Route[] {
  return [
    {
      method: 'get',
      pattern: spec.path,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { limit, skip } = page(req.query);
        const { rows } = await ctx.db.query(
          `SELECT ${spec.cols} FROM ${spec.table} WHERE tenant_id = $1 ORDER BY ${spec.order} LIMIT $2 OFFSET $3`,
          [tenant.id, limit, skip],
        );
        return reply(200, (rows as Row[]).map(spec.json));
      },
    },
    {
      method: 'get',
      pattern: `${spec.path}/:id`,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const row = await getRow(ctx.db, spec, tenant, uuidParam(req.params[0]!));
        if (!row) throw notFound(`${spec.noun} not found`);
        return reply(200, spec.json(row));
      },
    },
    {
      method: 'del',
      pattern: spec.path,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const ids = idsParam(req.query);
        const deleted = await configTx(ctx, tenant, async (c) => {
          const { rows } = await c.query<{ id: string }>(
            `DELETE FROM ${spec.table} WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
            [tenant.id, ids],
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
  apply: (c: PoolClient, tenant: Tenant, item: Item) => Promise<Row | string>,
): Route {
  return {
    method,
    pattern: spec.path,
    body: true,
    handler: async (req) => {
      const tenant = await identifyAdmin(ctx, req);
      const { items, issues } = parseBatch(jsonBody(req), validate);
      const done = await configTx(ctx, tenant, async (c) => {
        const rows: Row[] = [];
        for (const { index, item } of items) {
          const out = await apply(c, tenant, item);
          if (typeof out !== 'string') rows.push(out);
          else if (method === 'post') issues.push(issueAt(index, out));
          else issues.push(issueFor((item as { id: string }).id.toLowerCase(), out));
        }
        return rows;
      });
      if (method === 'patch') return reply(200, { updated: done.map(spec.json), issues });
      const sorted: AdminIssue[] = issues.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      return reply(done.length ? 201 : 200, { created: done.map(spec.json), issues: sorted });
    },
  };
}
