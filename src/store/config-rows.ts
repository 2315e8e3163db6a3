import type { Pool, PoolClient } from 'pg';
import type { Tenant } from './tenants';

/**
 * Rows of a tenant's config table, as the Admin API's collections read and
 * delete them (api/admin/resource.ts): every such table has `tenant_id` and
 * `id`, and a nested one (points triggers, levels, boosts) a column naming its
 * owner.
 */
export interface ConfigTable<Row> {
  table: string;
  /** Columns selected for a row. */
  cols: string;
  /** Creation order. */
  order: string;
  /** For rows under another config object: the owner's table, our column naming it, its noun. */
  parent?: { table: string; column: string; noun: string };
  /** Names the row type only (as typia's `__type`): never set. */
  readonly __row?: Row;
}

/** Where a request's rows live: the tenant, and the owner named in the path (if any). */
export interface Scope {
  tenant: Tenant;
  parentId: string | null;
}

/** Whether the tenant has the owner a nested collection's path names. */
export async function ownerExists(c: Pool | PoolClient, parent: NonNullable<ConfigTable<unknown>['parent']>, tenantId: string, id: string): Promise<boolean> {
  const { rowCount } = await c.query(`SELECT 1 FROM ${parent.table} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  return !!rowCount;
}

/** `WHERE` clause and parameters selecting a scope's rows; more parameters follow from `$3`. */
function where(spec: ConfigTable<unknown>, s: Scope): { sql: string; params: unknown[] } {
  return spec.parent
    ? { sql: `tenant_id = $1 AND ${spec.parent.column} = $2`, params: [s.tenant.id, s.parentId] }
    : { sql: `tenant_id = $1 AND $2::uuid IS NULL`, params: [s.tenant.id, null] };
}

export async function getRow<Row>(c: Pool | PoolClient, spec: ConfigTable<Row>, s: Scope, id: string): Promise<Row | null> {
  const w = where(spec, s);
  const { rows } = await c.query(`SELECT ${spec.cols} FROM ${spec.table} WHERE ${w.sql} AND id = $3`, [...w.params, id]);
  return (rows[0] as Row | undefined) ?? null;
}

/** A page of a scope's rows, in creation order. */
export async function listRows<Row>(c: Pool | PoolClient, spec: ConfigTable<Row>, s: Scope, limit: number, skip: number): Promise<Row[]> {
  const w = where(spec, s);
  const { rows } = await c.query(`SELECT ${spec.cols} FROM ${spec.table} WHERE ${w.sql} ORDER BY ${spec.order} LIMIT $3 OFFSET $4`, [...w.params, limit, skip]);
  return rows as Row[];
}

/** Delete a scope's rows by id; the rows deleted (ids not found are not among them). */
export async function deleteRows<Row>(c: PoolClient, spec: ConfigTable<Row>, s: Scope, ids: readonly string[]): Promise<(Row & { id: string })[]> {
  const w = where(spec, s);
  const { rows } = await c.query(`DELETE FROM ${spec.table} WHERE ${w.sql} AND id = ANY($3::uuid[]) RETURNING ${spec.cols}`, [...w.params, ids]);
  return rows as (Row & { id: string })[];
}
