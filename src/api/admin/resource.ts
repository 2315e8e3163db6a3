import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import type { Tenant } from '../../store/tenants';
import { AdminIssue, deletedOf, issueAt, issueFor, type ParsedBatch } from './batch';
import { configTx } from '../../store/config-tx';
import { inSavepoint, tx, type PoolClient } from '../../store/db';
import { ConfigTable, deleteRows, getRow, listRows, ownerExists, type Scope } from '../../store/config-rows';
import { attributesAmong } from '../../store/attributes';
import type { AttributeFilter, Deleted } from '../../wire/admin';
import { collectionRoutes, type CollectionDoc, type CollectionTypes } from './collection';

// The writes (writes/*) and the configuration document (config/*) name these with Resource.
export { getRow, type Scope };

/** A tenant-scoped config table exposed as an Admin API collection. */
export interface Resource<Row, Item = unknown> extends ConfigTable<Row> {
  /** Collection path, e.g. `/admin/v1/metrics` or `/admin/v1/points/:systemId/levels`. */
  path: string;
  /** Singular noun for messages ("Metric"). */
  noun: string;
  /** The row as the API answers it. */
  json(r: Row): Item;
  /** Rows the scripts never read (webhooks): written in a plain transaction, with no config version bump. */
  plain?: boolean;
  /** What goes with deleted rows (leagues: their runs' rows, then their Redis keys). */
  afterDelete?: {
    /** In the deleting transaction. */
    inTx?(c: PoolClient, s: Scope, rows: Row[]): Promise<void>;
    /** Once the deletion is committed (and, for config, published: no event reaches the rows any more). */
    committed?(s: Scope, rows: Row[]): Promise<void>;
  };
}

/** The transaction a resource's writes run in. */
function writeTx<T>(ctx: Ctx, spec: Resource<unknown>, tenant: Tenant, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  return spec.plain ? tx(ctx.db, fn) : configTx(ctx, tenant, fn);
}

/** The path parameter naming a nested collection's owner (`systemId`). */
const ownerParam = (spec: Resource<unknown>) => spec.path.split('/').find((s) => s.startsWith(':'))?.slice(1);

/** The tenant's rows and, for nested collections, the owner named in the path (404 when not the tenant's). */
async function scopeIn(ctx: Ctx, spec: Resource<unknown>, tenant: Tenant, params: object): Promise<Scope> {
  if (!spec.parent) return { tenant, parentId: null };
  const parentId = uuidParam((params as Record<string, string>)[ownerParam(spec)!]!, spec.parent.column);
  if (!(await ownerExists(ctx.db, spec.parent, tenant.id, parentId))) throw notFound(`${spec.parent.noun} not found`);
  return { tenant, parentId };
}

/** Delete a scope's rows by id, with what goes with them; ids not found are issues. */
async function deleteByIds<Row>(ctx: Ctx, spec: Resource<Row>, s: Scope, ids: string[]): Promise<Deleted> {
  const deleted = await writeTx(ctx, spec as Resource<unknown>, s.tenant, async (c) => {
    const rows = await deleteRows(c, spec, s, ids);
    if (rows.length) await spec.afterDelete?.inTx?.(c, s, rows);
    return rows;
  });
  if (deleted.length) await spec.afterDelete?.committed?.(s, deleted);
  return deletedOf(ids, deleted.map((r) => r.id), `${spec.noun} not found`);
}

/**
 * Apply a batch in one write transaction, each item alone: `apply` writes one
 * item and gives its row, or why it was refused (an issue by index on create,
 * by id on update).
 */
async function applyBatch<Item, Row>(
  ctx: Ctx,
  spec: Resource<unknown>,
  s: Scope,
  { items, issues }: ParsedBatch<Item>,
  apply: (c: PoolClient, s: Scope, item: Item) => Promise<Row | string>,
  issueOf: (index: number, item: Item, message: string) => AdminIssue,
): Promise<{ rows: Row[]; issues: AdminIssue[] }> {
  const rows = await writeTx(ctx, spec, s.tenant, async (c) => {
    const done: Row[] = [];
    for (const { index, item } of items) {
      // Each item alone: a refused one (a string) is undone and leaves the others applied.
      const out = await inSavepoint(c, () => apply(c, s, item), (o) => typeof o !== 'string');
      if (typeof out === 'string') issues.push(issueOf(index, item, out));
      else done.push(out);
    }
    return done;
  });
  return { rows, issues };
}

/** A config collection over a resource: its description and types, and the writes of one item. */
export interface ResourceCollection<Row, Item, C, U, CreatedRow, CreatedItem> extends CollectionDoc, CollectionTypes<Item, C, U, CreatedItem> {
  insert(c: PoolClient, s: Scope, item: C): Promise<CreatedRow | string>;
  change(c: PoolClient, s: Scope, item: U): Promise<Row | string>;
  /** How a created row is answered (default: as any row). */
  createdJson?: (r: CreatedRow) => NoInfer<CreatedItem>;
  /** Rows as read, before they are answered (leagues: their cohorts, counted in Redis). */
  read?: (s: Scope, rows: Row[]) => Promise<Row[]>;
}

/** The five routes of a config collection (see collection.ts), reading and writing a resource's rows. */
export function resourceRoutes<Row, Item, C extends object, U extends { id: string }, CreatedRow, CreatedItem>(
  ctx: Ctx,
  spec: Resource<Row, Item>,
  c: ResourceCollection<Row, Item, C, U, CreatedRow, CreatedItem>,
) {
  const any = spec as Resource<unknown>;
  const json = (r: Row) => spec.json(r);
  const createdJson = c.createdJson ?? (json as unknown as (r: CreatedRow) => CreatedItem);
  const read = async (s: Scope, rows: Row[]) => (c.read ? await c.read(s, rows) : rows).map(json);
  const scope = (i: { tenant: Tenant; params: object }) => scopeIn(ctx, any, i.tenant, i.params);
  return collectionRoutes({
    ...c,
    path: spec.path,
    onList: async (i, { limit, skip }) => {
      const s = await scope(i);
      return read(s, await listRows(ctx.db, spec, s, limit, skip));
    },
    onGet: async (i, id) => {
      const { s, row } = await rowOf(ctx, spec, i.tenant, i.params, id);
      return (await read(s, [row]))[0]!;
    },
    onCreate: async (i) => {
      const { rows, issues } = await applyBatch(ctx, any, await scope(i), i.body, c.insert, (index, _, message) => issueAt(index, message));
      return { created: rows.map(createdJson), issues };
    },
    onUpdate: async (i) => {
      const { rows, issues } = await applyBatch(ctx, any, await scope(i), i.body, c.change, (_, item, message) => issueFor(item.id.toLowerCase(), message));
      return { updated: rows.map(json), issues };
    },
    onDelete: async (i, ids) => deleteByIds(ctx, spec, await scope(i), ids),
  });
}

/** A row of a collection's resource, by the id in the path (404 when the scope has none). */
export async function rowOf<Row>(ctx: Ctx, spec: Resource<Row>, tenant: Tenant, params: object, id: string): Promise<{ s: Scope; row: Row }> {
  const s = await scopeIn(ctx, spec as Resource<unknown>, tenant, params);
  const row = await getRow(ctx.db, spec, s, id);
  if (!row) throw notFound(`${spec.noun} not found`);
  return { s, row };
}

/** Attribute filters must name attributes of the tenant, of the right kind. */
export async function attributeFilterProblem(c: PoolClient, s: Scope, filters: AttributeFilter[] | null | undefined, type: 'user' | 'event'): Promise<string | null> {
  if (!filters?.length) return null;
  const ids = filters.map((f) => f.attributeId.toLowerCase());
  const known = new Set(await attributesAmong(c, s.tenant.id, type, ids));
  const missing = ids.filter((id) => !known.has(id));
  return missing.length ? `Unknown ${type} attribute id: ${missing.join(', ')}` : null;
}
