import { randomUUID } from 'node:crypto';
import typia, { tags } from 'typia';
import type { Pool, PoolClient } from 'pg';
import { Ctx, identifyAdmin } from '../../context';
import { idsParam, jsonBody, uuidParam } from '../../http/body';
import { notFound } from '../../http/errors';
import { reply, Route } from '../../http/server';
import { tx } from '../../store/db';
import { TenantConfigs } from '../../store/tenant-config';
import type { Tenant } from '../../store/tenants';
import { AdminIssue, issueAt, issueFor, KEY_PATTERN, KEY_RULE, page, parseBatch } from './batch';

type UnitType = 'number' | 'currency';
interface CreateMetric {
  name: string & tags.MinLength<1> & tags.MaxLength<255>;
  key: string;
  unitType?: UnitType;
  units?: string & tags.MaxLength<50>;
}
interface UpdateMetric {
  id: string & tags.Format<'uuid'>;
  name?: string & tags.MinLength<1> & tags.MaxLength<255>;
  unitType?: UnitType;
  units?: string & tags.MaxLength<50>;
}
const validateCreate = typia.createValidate<CreateMetric>();
const validateUpdate = typia.createValidate<UpdateMetric>();

interface Row {
  id: string;
  name: string;
  key: string;
  unit_type: UnitType;
  units: string;
}
const COLS = 'id, name, key, unit_type, units';
const metricJson = (r: Row) => ({ id: r.id, name: r.name, key: r.key, unitType: r.unit_type, units: r.units });

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Units must be a currency code for currency metrics; free text otherwise. */
function unitsProblem(unitType: UnitType, units: string): string | null {
  if (unitType === 'currency' && !CURRENCIES.has(units.toUpperCase())) {
    return `Units must be a supported currency code (such as USD) for currency metrics`;
  }
  return null;
}

export function metricRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/metrics',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { limit, skip } = page(req.query);
        const { rows } = await ctx.db.query<Row>(
          `SELECT ${COLS} FROM metrics WHERE tenant_id = $1 ORDER BY slot LIMIT $2 OFFSET $3`,
          [tenant.id, limit, skip],
        );
        return reply(200, rows.map(metricJson));
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/metrics/:id',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const row = await getRow(ctx.db, tenant, uuidParam(req.params[0]!));
        if (!row) throw notFound('Metric not found');
        return reply(200, metricJson(row));
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/metrics',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { items, issues } = parseBatch(jsonBody(req), validateCreate);
        const created = await configTx(ctx, tenant, async (c) => {
          const out: Row[] = [];
          for (const { index, item } of items) {
            const unitType = item.unitType ?? 'number';
            const units = unitType === 'currency' ? (item.units ?? '').toUpperCase() : (item.units ?? '');
            const problem = !KEY_PATTERN.test(item.key) ? KEY_RULE : unitsProblem(unitType, units);
            if (problem) {
              issues.push(issueAt(index, problem));
              continue;
            }
            if ((await c.query('SELECT 1 FROM metrics WHERE tenant_id = $1 AND key = $2', [tenant.id, item.key])).rowCount) {
              issues.push(issueAt(index, 'Key already in use by another metric'));
              continue;
            }
            const now = new Date(ctx.clock.now());
            const { rows } = await c.query<Row>(
              `INSERT INTO metrics (id, tenant_id, slot, key, name, unit_type, units, created, updated)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLS}`,
              [randomUUID(), tenant.id, await nextSlot(c, tenant.id), item.key, item.name, unitType, units, now],
            );
            out.push(rows[0]!);
          }
          return out;
        });
        return reply(created.length ? 201 : 200, { created: created.map(metricJson), issues: issues.sort((a, b) => a.index! - b.index!) });
      },
    },
    {
      method: 'patch',
      pattern: '/admin/v1/metrics',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { items, issues } = parseBatch(jsonBody(req), validateUpdate);
        const updated = await configTx(ctx, tenant, async (c) => {
          const out: Row[] = [];
          for (const { item } of items) {
            const id = item.id.toLowerCase();
            const row = await getRow(c, tenant, id);
            if (!row) {
              issues.push(issueFor(id, 'Metric not found'));
              continue;
            }
            const unitType = item.unitType ?? row.unit_type;
            const units = item.units !== undefined ? item.units : item.unitType && item.unitType !== row.unit_type ? '' : row.units;
            const finalUnits = unitType === 'currency' ? units.toUpperCase() : units;
            const problem = unitsProblem(unitType, finalUnits);
            if (problem) {
              issues.push(issueFor(id, problem));
              continue;
            }
            const { rows } = await c.query<Row>(
              `UPDATE metrics SET name = $3, unit_type = $4, units = $5, updated = $6 WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
              [tenant.id, id, item.name ?? row.name, unitType, finalUnits, new Date(ctx.clock.now())],
            );
            out.push(rows[0]!);
          }
          return out;
        });
        return reply(200, { updated: updated.map(metricJson), issues });
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/metrics',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const ids = idsParam(req.query);
        const issues: AdminIssue[] = [];
        const deleted = await configTx(ctx, tenant, async (c) => {
          const { rows } = await c.query<{ id: string }>('DELETE FROM metrics WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id', [tenant.id, ids]);
          return rows;
        });
        const gone = new Set(deleted.map((r) => r.id));
        for (const id of ids) if (!gone.has(id)) issues.push(issueFor(id, 'Metric not found'));
        return reply(200, { deleted: deleted.map((r) => ({ id: r.id })), issues });
      },
    },
  ];
}

async function getRow(c: Pool | PoolClient, tenant: Tenant, id: string): Promise<Row | null> {
  const { rows } = await c.query<Row>(`SELECT ${COLS} FROM metrics WHERE tenant_id = $1 AND id = $2`, [tenant.id, id]);
  return rows[0] ?? null;
}

/** A new per-tenant short id (never reused, so stale Redis fields never alias). */
export async function nextSlot(c: PoolClient, tenantId: string): Promise<number> {
  const { rows } = await c.query<{ seq: number }>('UPDATE tenants SET seq = seq + 1 WHERE id = $1 RETURNING seq', [tenantId]);
  return rows[0]!.seq;
}

/**
 * A config change: runs in a transaction that locks the tenant row and bumps
 * its config version, then publishes the compiled config to Redis.
 */
export async function configTx<T>(ctx: Ctx, tenant: Tenant, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const out = await tx(ctx.db, async (c) => {
    await c.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenant.id]);
    const r = await fn(c);
    await TenantConfigs.bump(c, tenant.id);
    return r;
  });
  await ctx.configs.publish(tenant);
  await ctx.broadcast(`config:${tenant.slot}`);
  return out;
}
