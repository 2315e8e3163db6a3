import typia from 'typia';
import { idsParam, uuidParam } from '../../http/body';
import type { Created, Deleted, IdsQuery, ListQuery, Updated } from '../../wire/admin';
import { answer, io, ok, route, type Input, type Io, type Schema } from '../define';
import type { ParsedBatch } from './batch';

/** The query of a list request (`limit`, `skip`). */
export const listQuery = io(typia.http.createValidateQuery<ListQuery>(), typia.json.schema<ListQuery>());

/** A list request's page, with ListQuery's defaults. */
export const pageOf = (q: ListQuery) => ({ limit: q.limit ?? 10, skip: q.skip ?? 0 });

export type CollectionOp = 'list' | 'get' | 'create' | 'update' | 'delete';

/** What /openapi.json says of a collection besides its types. */
export interface CollectionDoc {
  /** Name in operation ids (`metrics` → `admin_metrics_list`). */
  name: string;
  /** Singular and plural nouns for summaries. */
  one: string;
  many: string;
  tag: string;
  /** Account-wide (tenants): Tenant-ID does not apply. */
  tenant?: false;
  description?: (op: CollectionOp) => string;
}

/** A collection's types: its items, the batches it takes and what it answers to them. */
export interface CollectionTypes<Item, C, U, CreatedItem> {
  item: Schema<Item>;
  items: Schema<Item[]>;
  create: Io<ParsedBatch<C>>;
  created: Schema<Created<CreatedItem>>;
  update: Io<ParsedBatch<U>>;
  updated: Schema<Updated<Item>>;
}

type In<Q = undefined, B = undefined> = Input<string, Q, B>;

/** A collection: its path, description and types, and what each of its five routes does. */
export interface Collection<Item, C, U, CreatedItem> extends CollectionDoc, CollectionTypes<Item, C, U, CreatedItem> {
  path: string;
  // What they answer is of the types the schemas name (NoInfer: the schemas decide, the handlers are checked).
  onList(input: In<ListQuery>, page: { limit: number; skip: number }): Promise<NoInfer<Item>[]>;
  /** The item, or a 404. */
  onGet(input: In, id: string): Promise<NoInfer<Item>>;
  onCreate(input: In<undefined, ParsedBatch<C>>): Promise<Created<NoInfer<CreatedItem>>>;
  onUpdate(input: In<undefined, ParsedBatch<U>>): Promise<Updated<NoInfer<Item>>>;
  onDelete(input: In, ids: string[]): Promise<Deleted>;
}

const idsDoc = typia.json.schema<IdsQuery>();
const deleted = typia.json.schema<Deleted>();

/**
 * The five routes of an Admin API collection (config objects, tenants):
 * list (limit/skip), get by id, create and update in batches (each item
 * refused alone, as an issue), delete by `ids`.
 */
export function collectionRoutes<Item, C, U, CreatedItem>(c: Collection<Item, C, U, CreatedItem>) {
  const head = (op: CollectionOp, summary: string) => ({
    auth: 'admin' as const,
    operationId: `admin_${c.name}_${op}`,
    tag: c.tag,
    summary,
    ...(c.description ? { description: c.description(op) } : {}),
    ...(c.tenant === false ? { tenant: false } : {}),
  });
  return [
    route({
      ...head('list', `List ${c.many}`),
      method: 'get',
      path: c.path,
      query: listQuery,
      responses: { 200: { description: `A page of ${c.many}, oldest first`, schema: c.items } },
      handler: async (i) => ok(await c.onList(i, pageOf(i.query))),
    }),
    route({
      ...head('get', `Get a ${c.one}`),
      method: 'get',
      path: `${c.path}/:id` as `${string}/:id`,
      responses: { 200: { description: `The ${c.one}`, schema: c.item } },
      handler: async (i) => ok(await c.onGet(i, uuidParam(i.params.id))),
    }),
    route({
      ...head('create', `Create ${c.many}`),
      method: 'post',
      path: c.path,
      body: c.create,
      responses: {
        201: { description: 'Some were created; the rest are issues', schema: c.created },
        200: { description: 'None were created: every item is an issue', schema: c.created },
      },
      handler: async (i) => {
        const out = await c.onCreate(i);
        out.issues.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        return answer(out.created.length ? 201 : 200, out);
      },
    }),
    route({
      ...head('update', `Update ${c.many} (by id)`),
      method: 'patch',
      path: c.path,
      body: c.update,
      responses: { 200: { description: 'What was updated, and issues by id', schema: c.updated } },
      handler: async (i) => ok(await c.onUpdate(i)),
    }),
    route({
      ...head('delete', `Delete ${c.many} (by id)`),
      method: 'del',
      path: c.path,
      // Read leniently (repeated or comma-separated), as Trophy does.
      queryDoc: idsDoc,
      responses: { 200: { description: 'What was deleted, and ids not found', schema: deleted } },
      handler: async (i) => ok(await c.onDelete(i, idsParam(i.req.query))),
    }),
    // A tuple: list, get, create, update, delete (test/client-admin-collections.test.ts checks the client against each).
  ] as const;
}
