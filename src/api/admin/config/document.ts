import { inSavepoint, PoolClient } from '../../../store/db';
import type { SecretBox } from '../../../domain/secret-box';
import type { ConfigFieldChange, ConfigPlan, ConfigProblem } from '../../../wire/admin';
import { identities, Ids, Kind, loadNames, Problem, Writer } from './kind';
import { KINDS } from './registry';

/** Each kind's items, by kind name (a kind a document leaves out is absent). */
export type Resources = Map<string, unknown[]>;

/** The tenant's whole configuration, every kind, as a pull shows it. */
export async function readResources(c: PoolClient, tenantId: string, box: SecretBox): Promise<Resources> {
  const names = await loadNames(c, tenantId);
  const out: Resources = new Map();
  for (const k of KINDS) out.set(k.name, await k.read(c, tenantId, names, box));
  return out;
}

/** The document's JSON `resources` (kinds in registry order, settings as one object). */
export function resourcesJson(r: Resources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of KINDS) {
    const items = r.get(k.name);
    if (items) out[k.name] = k.single ? items[0] : items;
  }
  return out;
}

/** A document's resources, validated (every problem with its path) and normalised. */
export function parseResources(body: unknown): { resources: Resources; problems: ConfigProblem[] } {
  const resources: Resources = new Map();
  const problems: ConfigProblem[] = [];
  const doc = body as { resources?: unknown } | null;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || typeof doc.resources !== 'object' || doc.resources === null || Array.isArray(doc.resources)) {
    return { resources, problems: [{ path: 'resources', message: 'The document must be an object with a resources object' }] };
  }
  const given = doc.resources as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!KINDS.some((k) => k.name === name)) problems.push({ path: `resources.${name}`, message: 'Unknown resource kind' });
  }
  for (const k of KINDS) {
    if (!(k.name in given)) continue;
    const r = k.validate(given[k.name]);
    if (!r.success) {
      for (const e of r.errors) {
        const path = `resources.${k.name}${e.path.replace(/^\$input/, '')}`;
        const message = e.expected === 'undefined' ? 'unknown field' : e.value === undefined ? `required (${e.expected})` : `expected ${e.expected}`;
        problems.push({ path, message });
      }
      continue;
    }
    const items = k.single ? [r.data] : (r.data as unknown[]);
    resources.set(k.name, items.map((x) => k.normal(x)));
  }
  return { resources, problems };
}

const itemPath = (k: Kind, i: number) => (k.single ? `resources.${k.name}` : `resources.${k.name}[${i}]`);

/** Identities of what each kind holds once the document is applied (for checking references). */
function finalIdentities(before: Resources, want: Resources, prune: boolean): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const k of KINDS) {
    const have = before.get(k.name)!;
    const given = want.get(k.name);
    const keep = !given ? (prune && !k.single ? [] : have) : prune ? [] : have;
    out.set(k.name, new Set([...identities(keep, k.identity), ...identities(given ?? [], k.identity)]));
  }
  return out;
}

/** References to what will not exist, each with its path. */
function danglingRefs(before: Resources, want: Resources, prune: boolean): ConfigProblem[] {
  const known = finalIdentities(before, want, prune);
  const problems: ConfigProblem[] = [];
  for (const k of KINDS) {
    for (const [i, item] of (want.get(k.name) ?? []).entries()) {
      for (const ref of k.refs(item)) {
        if (known.get(ref.kind)?.has(ref.identity)) continue;
        problems.push({ path: itemPath(k, i) + ref.path, message: `No ${ref.kind} with key "${ref.identity.replace(/^(user|event):/, '')}"` });
      }
    }
  }
  return problems;
}

/** Indexes of items in an order where each comes after the items of its kind it needs. */
function writeOrder(k: Kind, items: unknown[], ids: string[]): number[] {
  if (!k.needs) return items.map((_, i) => i);
  const at = new Map(ids.map((id, i) => [id, i]));
  const order: number[] = [];
  const state = new Map<number, 'visiting' | 'done'>();
  const visit = (i: number) => {
    if (state.has(i)) return; // done, or a cycle: the write reports it
    state.set(i, 'visiting');
    for (const need of k.needs!(items[i])) {
      const j = at.get(need);
      if (j !== undefined) visit(j);
    }
    state.set(i, 'done');
    order.push(i);
  };
  items.forEach((_, i) => visit(i));
  return order;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Write a document's resources over the tenant's (in the caller's config
 * transaction), through the Admin API's own writes. Each item is written in a
 * savepoint so every problem is found; the caller rolls back when there is any.
 * `invalid`: the problems of the parts that did not validate (left out of `want`).
 */
export async function applyResources(w: Omit<Writer, 'ids'>, before: Resources, want: Resources, invalid: ConfigProblem[] = []): Promise<ConfigProblem[]> {
  const problems = [...invalid, ...danglingRefs(before, want, w.prune)];
  // Nothing is written for an invalid document (with a dangling reference the writes would only repeat it as a lookup failure).
  if (problems.length) return problems;
  const writer: Writer = { ...w, ids: new Ids(w.c, w.scope.tenant.id) };
  for (const k of KINDS) {
    const items = want.get(k.name);
    if (!items) continue;
    const have = before.get(k.name)!;
    const haveIds = identities(have, k.identity);
    const wantIds = identities(items, k.identity);
    for (const i of writeOrder(k, items, wantIds)) {
      const j = haveIds.indexOf(wantIds[i]!);
      if (j >= 0 && same(have[j], items[i])) continue;
      const write = (): Promise<Problem[]> => (j >= 0 ? k.update(writer, items[i], have[j], wantIds[i]!) : k.create(writer, items[i]));
      const found = await inSavepoint(w.c, write, (p) => p.length === 0);
      problems.push(...found.map((p) => ({ path: itemPath(k, i) + p.path, message: p.message })));
    }
  }
  if (!w.prune) return problems;
  // What the document lacks, dependants first.
  for (const k of [...KINDS].reverse()) {
    if (k.single) continue;
    const have = before.get(k.name)!;
    const haveIds = identities(have, k.identity);
    const wantIds = new Set(identities(want.get(k.name) ?? [], k.identity));
    // From the last, so the ordinals of the rest stay as they were read.
    for (let j = have.length - 1; j >= 0; j--) if (!wantIds.has(haveIds[j]!)) await k.remove(writer, have[j], haveIds[j]!);
  }
  return problems;
}

/** What changed from one configuration to another, naming only what changed. */
export function diffResources(before: Resources, after: Resources, version: number): ConfigPlan {
  const plan: ConfigPlan = { version, creations: [], updates: [], deletions: [] };
  for (const k of KINDS) {
    const a = before.get(k.name)!;
    const b = after.get(k.name)!;
    const aIds = identities(a, k.identity);
    const bIds = identities(b, k.identity);
    const key = (id: string) => (k.single ? k.name : id.replace(/^(user|event):/, ''));
    for (const [i, item] of b.entries()) {
      const j = aIds.indexOf(bIds[i]!);
      if (j < 0) plan.creations.push({ kind: k.name, key: key(bIds[i]!), after: item });
      else if (!same(a[j], item)) plan.updates.push({ kind: k.name, key: key(bIds[i]!), changes: fieldChanges(k, a[j], item) });
    }
    for (const [j, item] of a.entries()) if (!bIds.includes(aIds[j]!)) plan.deletions.push({ kind: k.name, key: key(aIds[j]!), before: item });
  }
  return plan;
}

/** The changed fields of an item; a nested list's entries are compared by identity (`triggers[metric:visits].points`). */
/* eslint-disable @typescript-eslint/no-explicit-any -- items of any kind, compared field by field */
function fieldChanges(k: Kind, before: any, after: any): ConfigFieldChange[] {
  const out: ConfigFieldChange[] = [];
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const f of fields) {
    if (same(before[f], after[f])) continue;
    const identity = k.children?.[f];
    if (!identity) {
      out.push({ field: f, before: before[f], after: after[f] });
      continue;
    }
    const a: any[] = before[f] ?? [];
    const b: any[] = after[f] ?? [];
    const aIds = identities(a, identity);
    const bIds = identities(b, identity);
    for (const [i, entry] of b.entries()) {
      const j = aIds.indexOf(bIds[i]!);
      const at = `${f}[${bIds[i]}]`;
      if (j < 0) out.push({ field: at, after: entry });
      else for (const g of Object.keys({ ...a[j], ...entry })) if (!same(a[j][g], entry[g])) out.push({ field: `${at}.${g}`, before: a[j][g], after: entry[g] });
    }
    for (const [j, entry] of a.entries()) if (!bIds.includes(aIds[j]!)) out.push({ field: `${f}[${aIds[j]}]`, before: entry });
  }
  return out;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export const changeCount = (p: ConfigPlan) => p.creations.length + p.updates.length + p.deletions.length;
