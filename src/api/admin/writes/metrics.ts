import type { AdminMetric } from '../../../wire/admin';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { idOfKey } from '../../../store/config-keys';
import { insertMetric, METRIC_COLS, MetricRow, updateMetricRow } from '../../../store/metrics';
import { getRow, Resource, Scope } from '../resource';
import type { CreateMetric, UnitType, UpdateMetric } from '../../../wire/admin';

// Metric writes, shared by the Admin API and the configuration document.

export const METRICS: Resource<MetricRow, AdminMetric> = {
  path: '/admin/v1/metrics',
  table: 'metrics',
  cols: METRIC_COLS,
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
  if ((await idOfKey(c, tenant.id, 'metrics', item.key)) !== null) return 'Key already in use by another metric';
  const metric = { id: randomUUID(), key: item.key, name: item.name, unit_type: unitType, units: units.units };
  return insertMetric(c, tenant.id, await nextSlot(c, tenant.id), metric, new Date(ctx.clock.now()));
}

export async function updateMetric(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: UpdateMetric): Promise<MetricRow | string> {
  const id = item.id.toLowerCase();
  const row = await getRow(c, METRICS, { tenant, parentId: null }, id);
  if (!row) return 'Metric not found';
  const unitType = item.unitType ?? row.unit_type;
  // Switching unit type without new units clears the old ones (a currency code is no label).
  const units = checkUnits(unitType, item.units ?? (unitType === row.unit_type ? row.units : ''));
  if (typeof units === 'string') return units;
  return updateMetricRow(c, tenant.id, { id, name: item.name ?? row.name, unit_type: unitType, units: units.units }, new Date(ctx.clock.now()));
}
