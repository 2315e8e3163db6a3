import type { Pool, PoolClient } from 'pg';
import type { UnitType } from '../wire/admin';

// The metrics table: what events count, by key.

export interface MetricRow {
  id: string;
  name: string;
  key: string;
  unit_type: UnitType;
  units: string;
}

export const METRIC_COLS = 'id, name, key, unit_type, units';

/** How many of `ids` (distinct, lower case) are the tenant's metrics. */
export async function countMetrics(db: Pool | PoolClient, tenantId: string, ids: string[]): Promise<number> {
  const { rowCount } = await db.query('SELECT id FROM metrics WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [tenantId, ids]);
  return rowCount ?? 0;
}

export async function insertMetric(c: PoolClient, tenantId: string, slot: number, m: MetricRow, now: Date): Promise<MetricRow> {
  const { rows } = await c.query<MetricRow>(
    `INSERT INTO metrics (id, tenant_id, slot, key, name, unit_type, units, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${METRIC_COLS}`,
    [m.id, tenantId, slot, m.key, m.name, m.unit_type, m.units, now],
  );
  return rows[0]!;
}

/** Set an existing metric's name and units (its key never changes). */
export async function updateMetricRow(c: PoolClient, tenantId: string, m: Omit<MetricRow, 'key'>, now: Date): Promise<MetricRow> {
  const { rows } = await c.query<MetricRow>(
    `UPDATE metrics SET name = $3, unit_type = $4, units = $5, updated = $6 WHERE tenant_id = $1 AND id = $2 RETURNING ${METRIC_COLS}`,
    [tenantId, m.id, m.name, m.unit_type, m.units, now],
  );
  return rows[0]!;
}

export async function metricsOf(c: PoolClient, tenantId: string): Promise<MetricRow[]> {
  return (await c.query<MetricRow>(`SELECT ${METRIC_COLS} FROM metrics WHERE tenant_id = $1`, [tenantId])).rows;
}
