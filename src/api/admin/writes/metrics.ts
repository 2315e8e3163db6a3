import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { getRow, Resource, Scope } from '../resource';
import type { CreateMetric, UnitType, UpdateMetric } from '../../../wire/admin';

// Metric writes, shared by the Admin API and the configuration document.

export interface MetricRow {
  id: string;
  name: string;
  key: string;
  unit_type: UnitType;
  units: string;
}
const COLS = 'id, name, key, unit_type, units';
export const METRICS: Resource<MetricRow> = {
  path: '/admin/v1/metrics',
  table: 'metrics',
  cols: COLS,
  order: 'slot',
  noun: 'Metric',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, unitType: r.unit_type, units: r.units }),
};

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** The stored units, or why they are not acceptable: a currency code for currency metrics, free text otherwise. */
function checkUnits(unitType: UnitType, units: string): { units: string } | string {
  if (unitType === 'number') return { units };
  const code = units.toUpperCase();
  return CURRENCIES.has(code) ? { units: code } : 'Units must be a supported currency code (such as USD) for currency metrics';
}

export async function createMetric(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: CreateMetric): Promise<MetricRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  const unitType = item.unitType ?? 'number';
  const units = checkUnits(unitType, item.units ?? '');
  if (typeof units === 'string') return units;
  if ((await c.query('SELECT 1 FROM metrics WHERE tenant_id = $1 AND key = $2', [tenant.id, item.key])).rowCount) {
    return 'Key already in use by another metric';
  }
  const { rows } = await c.query<MetricRow>(
    `INSERT INTO metrics (id, tenant_id, slot, key, name, unit_type, units, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLS}`,
    [randomUUID(), tenant.id, await nextSlot(c, tenant.id), item.key, item.name, unitType, units.units, new Date(ctx.clock.now())],
  );
  return rows[0]!;
}

export async function updateMetric(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: UpdateMetric): Promise<MetricRow | string> {
  const id = item.id.toLowerCase();
  const row = await getRow(c, METRICS, { tenant, parentId: null }, id);
  if (!row) return 'Metric not found';
  const unitType = item.unitType ?? row.unit_type;
  // Switching unit type without new units clears the old ones (a currency code is no label).
  const units = checkUnits(unitType, item.units ?? (unitType === row.unit_type ? row.units : ''));
  if (typeof units === 'string') return units;
  const { rows } = await c.query<MetricRow>(
    `UPDATE metrics SET name = $3, unit_type = $4, units = $5, updated = $6 WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
    [tenant.id, id, item.name ?? row.name, unitType, units.units, new Date(ctx.clock.now())],
  );
  return rows[0]!;
}
