import typia from 'typia';
import { idsParam, uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { ok, route, type Schema } from '../define';
import type { Deleted, IdsQuery } from '../../wire/admin';
import { deletedOf } from './batch';
import { listQuery, pageOf } from './collection';

/** Records set aside for an admin to look at (dead letters, rejected batch items), by tenant. */
export interface SetAside<T> {
  /** Newest first. */
  list(tenantId: string, limit: number, skip: number): Promise<T[]>;
  get(tenantId: string, id: string): Promise<T | null>;
  /** The ids that were there. */
  discard(tenantId: string, ids: string[]): Promise<string[]>;
}

/** How the three routes describe themselves, besides their path and tag. */
interface Texts {
  summary: string;
  description?: string;
  /** The success response's. */
  answer: string;
}

interface Spec<P extends string, T> {
  path: P;
  tag: string;
  /** Prefix of the operation ids (`admin_dead_letters` → `admin_dead_letters_list`). */
  name: string;
  /** Singular noun for "not found" ("Dead letter"). */
  noun: string;
  item: Schema<T>;
  items: Schema<T[]>;
  list: Texts;
  get: Texts;
  discard: Texts;
}

/** List (`limit`, `skip`), get one by id, discard by `ids`: the same for every kind of set-aside record. */
export function setAsideRoutes<P extends string, T>(store: SetAside<T>, s: Spec<P, T>) {
  const common = { tag: s.tag, auth: 'admin' } as const;
  const texts = (t: Texts) => ({ summary: t.summary, ...(t.description ? { description: t.description } : {}) });
  return [
    route({
      ...common, ...texts(s.list), method: 'get', path: s.path, operationId: `${s.name}_list`,
      query: listQuery,
      responses: { 200: { description: s.list.answer, schema: s.items } },
      handler: async ({ tenant, query }) => {
        const { limit, skip } = pageOf(query);
        return ok(await store.list(tenant.id, limit, skip));
      },
    }),
    route({
      ...common, ...texts(s.get), method: 'get', path: `${s.path}/:id` as `${string}/:id`, operationId: `${s.name}_get`,
      responses: { 200: { description: s.get.answer, schema: s.item } },
      handler: async ({ tenant, params }) => {
        const row = await store.get(tenant.id, uuidParam(params.id));
        if (!row) throw notFound(`${s.noun} not found`);
        return ok(row);
      },
    }),
    route({
      ...common, ...texts(s.discard), method: 'del', path: s.path, operationId: `${s.name}_delete`,
      // `ids` may also come comma-separated, which a typia query type cannot read.
      queryDoc: typia.json.schema<IdsQuery>(),
      responses: { 200: { description: s.discard.answer, schema: typia.json.schema<Deleted>() } },
      handler: async ({ tenant, req }) => {
        const ids = idsParam(req.query);
        return ok(deletedOf(ids, await store.discard(tenant.id, ids), `${s.noun} not found`));
      },
    }),
  ];
}
