import { randomUUID } from 'node:crypto';
import typia, { tags } from 'typia';
import type { Pool, PoolClient } from 'pg';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody, uuidParam } from '../../http/body';
import { notFound } from '../../http/errors';
import { reply, Route } from '../../http/server';
import type { Tenant } from '../../store/tenants';
import { AdminIssue, issueAt, issueFor, KEY_PATTERN, KEY_RULE, page, parseBatch } from './batch';
import { configTx } from './metrics';

type AttributeType = 'user' | 'event';
interface CreateAttribute {
  name: string & tags.MinLength<1> & tags.MaxLength<255>;
  key: string;
  type: AttributeType;
}
interface UpdateAttribute {
  id: string & tags.Format<'uuid'>;
  name?: string & tags.MinLength<1> & tags.MaxLength<255>;
}
const validateCreate = typia.createValidate<CreateAttribute>();
const validateUpdate = typia.createValidate<UpdateAttribute>();

interface Row {
  id: string;
  name: string;
  key: string;
  type: AttributeType;
}
const COLS = 'id, name, key, type';
const attributeJson = (r: Row) => ({ id: r.id, name: r.name, key: r.key, type: r.type });

async function getRow(c: Pool | PoolClient, tenant: Tenant, id: string): Promise<Row | null> {
  const { rows } = await c.query<Row>(`SELECT ${COLS} FROM attributes WHERE tenant_id = $1 AND id = $2`, [tenant.id, id]);
  return rows[0] ?? null;
}

/** User and event attributes; `key` and `type` are fixed once created. */
export function attributeRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/attributes',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { limit, skip } = page(req.query);
        const { rows } = await ctx.db.query<Row>(
          `SELECT ${COLS} FROM attributes WHERE tenant_id = $1 ORDER BY seq LIMIT $2 OFFSET $3`,
          [tenant.id, limit, skip],
        );
        return reply(200, rows.map(attributeJson));
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/attributes/:id',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const row = await getRow(ctx.db, tenant, uuidParam(req.params[0]!));
        if (!row) throw notFound('Attribute not found');
        return reply(200, attributeJson(row));
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/attributes',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { items, issues } = parseBatch(jsonBody(req), validateCreate);
        const created = await configTx(ctx, tenant, async (c) => {
          const out: Row[] = [];
          for (const { index, item } of items) {
            if (!KEY_PATTERN.test(item.key)) {
              issues.push(issueAt(index, KEY_RULE));
              continue;
            }
            const taken = await c.query('SELECT 1 FROM attributes WHERE tenant_id = $1 AND type = $2 AND key = $3', [tenant.id, item.type, item.key]);
            if (taken.rowCount) {
              issues.push(issueAt(index, 'Key already in use by another attribute of this type'));
              continue;
            }
            const now = new Date(ctx.clock.now());
            const { rows } = await c.query<Row>(
              `INSERT INTO attributes (id, tenant_id, key, name, type, created, updated) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${COLS}`,
              [randomUUID(), tenant.id, item.key, item.name, item.type, now],
            );
            out.push(rows[0]!);
          }
          return out;
        });
        return reply(created.length ? 201 : 200, { created: created.map(attributeJson), issues: issues.sort((a, b) => a.index! - b.index!) });
      },
    },
    {
      method: 'patch',
      pattern: '/admin/v1/attributes',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { items, issues } = parseBatch(jsonBody(req), validateUpdate);
        const updated = await configTx(ctx, tenant, async (c) => {
          const out: Row[] = [];
          for (const { item } of items) {
            const id = item.id.toLowerCase();
            const { rows } = await c.query<Row>(
              `UPDATE attributes SET name = coalesce($3, name), updated = $4 WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
              [tenant.id, id, item.name ?? null, new Date(ctx.clock.now())],
            );
            if (rows[0]) out.push(rows[0]);
            else issues.push(issueFor(id, 'Attribute not found'));
          }
          return out;
        });
        return reply(200, { updated: updated.map(attributeJson), issues });
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/attributes',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const ids = idsParam(req.query);
        const deleted = await configTx(ctx, tenant, async (c) => {
          const { rows } = await c.query<{ id: string }>('DELETE FROM attributes WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id', [tenant.id, ids]);
          return rows;
        });
        const gone = new Set(deleted.map((r) => r.id));
        const issues: AdminIssue[] = ids.filter((id) => !gone.has(id)).map((id) => issueFor(id, 'Attribute not found'));
        return reply(200, { deleted: deleted.map((r) => ({ id: r.id })), issues });
      },
    },
  ];
}
