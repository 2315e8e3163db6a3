import type { PoolClient } from '../../../store/db';
import { attributeIdOfKey, idOfKey, keysById } from '../../../store/config-keys';
import type { IValidation } from 'typia';
import type { Ctx } from '../../../context';
import type { SecretBox } from '../../../domain/secret-box';
import type { Scope } from '../resource';
import type { AttributeFilter, ConfigAttributeFilter } from '../../../wire/admin';

/**
 * One kind of resource in the configuration document (metrics, leaderboards…):
 * how it is read out of a tenant, compared and written back. The document
 * engine (./document.ts) knows nothing else about a kind, so a new kind is one
 * module added to ./registry.ts. A kind holding secrets leaves them out of
 * `read`, and its `update` keeps the stored secret when the document has none
 * (as webhooks do).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kinds of every item shape sit in one list
export interface Kind<Item = any> {
  /** Its field under `resources`. */
  name: string;
  /** One settings object instead of a list (never created or deleted, only changed). */
  single?: boolean;
  /** The kind's part of a document, as given (all problems, with paths from `$input`). */
  validate(x: unknown): IValidation<unknown>;
  /** The tenant's items as the document shows them (keys for ids, every field), in document order (`box` opens sealed settings). */
  read(c: PoolClient, tenantId: string, names: Names, box: SecretBox): Promise<Item[]>;
  /** An item as read back would show it, from one as given (defaults filled in). */
  normal(item: Item): Item;
  /** An item's identity within the kind before ordinals (its key; url or name for kinds without one). */
  identity(item: Item): string;
  /** Identities of the same kind an item needs written first (composite achievements). */
  needs?(item: Item): string[];
  /** Other resources an item names: where (relative to the item), the kind, the identity there. */
  refs(item: Item): Ref[];
  /** Nested lists compared entry by entry in a plan, with each entry's identity. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- entries of any nested list
  children?: Record<string, (entry: any) => string>;
  create(w: Writer, item: Item): Promise<Problem[]>;
  /** `identity`: the item's identity in the list (with its ordinal). */
  update(w: Writer, item: Item, before: Item, identity: string): Promise<Problem[]>;
  remove(w: Writer, before: Item, identity: string): Promise<void>;
}

export interface Ref {
  path: string;
  kind: string;
  identity: string;
}

/** A problem with an item, at a path relative to it ('' for the item itself). */
export interface Problem {
  path: string;
  message: string;
}

export const problem = (message: string, path = ''): Problem[] => [{ path, message }];
/** An Admin write's answer (a row or why it was refused) as problems. */
export const outcome = (r: unknown, path = ''): Problem[] => (typeof r === 'string' ? problem(r, path) : []);

/** What a kind writes with: the request's services, the transaction, the tenant and key → id lookups. */
export interface Writer {
  ctx: Ctx;
  c: PoolClient;
  scope: Scope;
  ids: Ids;
  /** Delete nested entries the document lacks (`?prune=true`). */
  prune: boolean;
}

/**
 * The id of a missing key. References were checked before anything was written, so a key is missing only when its
 * own write failed (a problem already reported): an id matching nothing then lets the Admin write say "not found" for
 * this item too.
 */
const NO_ID = '00000000-0000-0000-0000-000000000000';

/** Ids of the tenant's resources by key, as of now in the transaction. */
export class Ids {
  constructor(private readonly c: PoolClient, private readonly tenantId: string) {}

  async metric(key: string) {
    return (await idOfKey(this.c, this.tenantId, 'metrics', key)) ?? NO_ID;
  }
  async attribute(type: 'user' | 'event', key: string) {
    return (await attributeIdOfKey(this.c, this.tenantId, type, key)) ?? NO_ID;
  }
  async achievement(key: string) {
    return (await idOfKey(this.c, this.tenantId, 'achievements', key)) ?? NO_ID;
  }
  async system(key: string) {
    return (await idOfKey(this.c, this.tenantId, 'points_systems', key)) ?? NO_ID;
  }

  /** Filters by key as filters by id. */
  async filters(type: 'user' | 'event', list: ConfigAttributeFilter[] | null | undefined): Promise<AttributeFilter[]> {
    const out: AttributeFilter[] = [];
    for (const f of list ?? []) out.push({ attributeId: await this.attribute(type, f.attributeKey), attributeValue: f.attributeValue });
    return out;
  }
}

/** Keys of the tenant's resources by id, for reading them out. */
export interface Names {
  metric: Map<string, string>;
  attribute: Map<string, string>;
  achievement: Map<string, string>;
  system: Map<string, string>;
}

export async function loadNames(c: PoolClient, tenantId: string): Promise<Names> {
  return {
    metric: await keysById(c, tenantId, 'metrics'), attribute: await keysById(c, tenantId, 'attributes'),
    achievement: await keysById(c, tenantId, 'achievements'), system: await keysById(c, tenantId, 'points_systems'),
  };
}

/** Filters by id as filters by key (a filter on a deleted attribute is left out: it can never match). */
export function filtersByKey(names: Names, list: AttributeFilter[] | null | undefined): ConfigAttributeFilter[] {
  return (list ?? []).flatMap((f) => {
    const key = names.attribute.get(f.attributeId.toLowerCase());
    return key === undefined ? [] : [{ attributeKey: key, attributeValue: f.attributeValue }];
  });
}

/** References of filters to attributes of a type. */
export const filterRefs = (type: 'user' | 'event', field: string, list: ConfigAttributeFilter[] | null | undefined): Ref[] =>
  (list ?? []).map((f, i) => ({ path: `.${field}[${i}].attributeKey`, kind: 'attributes', identity: `${type}:${f.attributeKey}` }));

/**
 * Identities made unique within a list: the second item with identity `x` is `x#2`, and so on
 * (two triggers on one metric, two webhooks to one URL).
 */
export function identities<T>(items: T[], identity: (x: T) => string): string[] {
  const seen = new Map<string, number>();
  return items.map((x) => {
    const id = identity(x);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 1 ? id : `${id}#${n}`;
  });
}

/** Properties left out when undefined, so a read-back item and a normalised one compare as JSON. */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Order items by identity (a pull's order does not depend on creation order). */
export function byIdentity<T>(items: T[], identity: (x: T) => string): T[] {
  return [...items].sort((a, b) => (identity(a) < identity(b) ? -1 : identity(a) > identity(b) ? 1 : 0));
}
