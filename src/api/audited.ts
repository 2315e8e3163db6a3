import type { Ctx } from '../context';
import type { Reply, Request, Route } from '../http/server';
import type { NewAuditEntry } from '../store/audit';
import { erasureHash } from '../store/privacy';

/**
 * The audit log's recorder, wrapped around the Admin API's write routes at
 * the route list (app.ts), so a route added later is recorded with no code
 * of its own. One entry per request that succeeded (2xx) and changed
 * something; reads and refused requests leave none.
 *
 * What an entry says is read from the route: the resource kind from its
 * pattern, the action from its method (or its last segment: `/rotate`), the
 * ids from the path, the reply or the query. For updates (PATCH, PUT), the
 * resource is read through its own GET route before and after, and the fields
 * that differ are kept, with secrets masked.
 */
export function audited(ctx: Ctx, routes: Route[]): Route[] {
  const gets = new Map(routes.filter((r) => r.method === 'get').map((r) => [r.pattern, r.handler]));
  return routes.map((r) => (isAuditedWrite(r.method, r.pattern) ? { ...r, handler: recorded(ctx, r, gets) } : r));
}

/** Whether a route is recorded: an Admin API route other than a read (a GET, or a POST that changes nothing: `/preview`, `/plan`). */
export function isAuditedWrite(method: string, pattern: string): boolean {
  return method.toLowerCase() !== 'get' && pattern.startsWith(ADMIN) && !READ_ONLY.has(pattern.slice(pattern.lastIndexOf('/') + 1));
}

const ADMIN = '/admin/v1/';
/** Last segments that name an action rather than a resource. */
const VERBS: Record<string, string> = { rotate: 'rotate', 'rotate-secret': 'rotate', replay: 'replay', redeliver: 'redeliver', restore: 'restore', test: 'test', revert: 'revert' };
/** Last segments of POST routes that change nothing (a template rendered for a look, a config plan): not recorded. */
const READ_ONLY = new Set(['preview', 'plan']);
/** Resources of the whole instance: no tenant is recorded. */
const ACCOUNT_LEVEL = new Set(['tenants', 'admin-api-keys']);
/** Field names whose values are never recorded. */
const SECRET_FIELD = /secret|password|token|credential|apikey|private/i;
/** A value shaped like one of our API keys, under any field name. */
const API_KEY_VALUE = /^(admin|app)_[A-Za-z0-9_-]+\.[A-Za-z0-9]{16,}$/;
export const MASK = '[masked]';

type Snapshot = Map<string, Record<string, unknown>>;
type Changes = NonNullable<NewAuditEntry['changes']>;

function recorded(ctx: Ctx, route: Route, gets: Map<string, Route['handler']>): Route['handler'] {
  const segments = route.pattern.slice(ADMIN.length).split('/');
  const last = segments[segments.length - 1]!;
  const verb = VERBS[last];
  const named = segments.filter((s) => !s.startsWith(':') && !(s === last && verb));
  const resource = named.join('/');
  // The id in the path, when the route acts on one resource (`/webhooks/:id`, `/webhooks/:id/rotate-secret`).
  const itemParam = (verb ? segments[segments.length - 2] : last)?.startsWith(':') ? segments.filter((s) => s.startsWith(':')).length - 1 : -1;
  // A user's id is personal data, and the log is never edited (an erasure could not take it out):
  // it is recorded as the erasure's hash of tenant and user id instead.
  const params = segments.filter((s) => s.startsWith(':'));
  const personal = new Set(segments.flatMap((s, i) => (s.startsWith(':') && segments[i - 1] === 'users' ? [params.indexOf(s)] : [])));
  const isUpdate = route.method === 'patch' || route.method === 'put';
  const base = verb ?? (route.method === 'post' ? 'create' : isUpdate ? 'update' : resource === 'users' ? 'erase' : 'delete');

  return async (req) => {
    // Read only for a caller who may make the change (so a refused request costs no reads), as the server itself.
    const read = isUpdate && (await ctx.auth.actor(req.apiKey)) ? reader(route, { ...req, apiKey: ctx.auth.internalKey }, gets) : null;
    const before = read ? await read() : null;
    const out = await route.handler(req);
    if (out.status < 200 || out.status >= 300) return out;
    const body = jsonOf(out);
    if (changedNothing(body)) return out;
    try {
      const after = read && before ? await read() : null;
      const changes = before && after ? diff(before, after) : null;
      const actor = await ctx.auth.actor(req.apiKey);
      const tenant = ACCOUNT_LEVEL.has(resource) ? null : await ctx.tenants.resolve({ kind: 'admin' }, req.tenantId).catch(() => null);
      const values = req.params.map((v, i) => (personal.has(i) ? `sha256:${erasureHash(tenant?.id ?? '', v)}` : v));
      let k = 0;
      const path = ADMIN + segments.map((s) => (s.startsWith(':') ? encodeURIComponent(values[k++]!) : s)).join('/');
      await ctx.audit.append({
        keyId: actor?.id ?? 'unknown',
        keyPrefix: actor?.prefix ?? 'unknown',
        tenantId: tenant?.id ?? null,
        method: req.method,
        route: route.pattern,
        path,
        resource,
        resourceIds: idsOf({ ...req, params: values }, body, itemParam, changes),
        action: actionOf(base, changes),
        status: out.status,
        changes,
      });
    } catch (err) {
      // The change is made: it is answered, and the missing entry is logged loudly.
      ctx.log.error('audit entry not written', { method: req.method, route: route.pattern, requestId: req.requestId, err: (err as Error).message });
    }
    return out;
  };
}

/**
 * How to read what an update touches, through the resource's own GET route:
 * the same pattern for one resource (`/retention`, `/admin-api-keys/:id`), or
 * `{pattern}/:id` for each item of a batch (`[{ "id": … }]`). Null when
 * there is no such route.
 */
function reader(route: Route, req: Request, gets: Map<string, Route['handler']>): (() => Promise<Snapshot>) | null {
  // A resource that cannot be read (gone, refused) is left out: only what both reads saw is compared.
  const get = async (handler: Route['handler'], params: string[]): Promise<Record<string, unknown> | null> => {
    try {
      const r = await handler({ ...req, method: 'GET', params, query: new URLSearchParams(), body: Buffer.alloc(0) });
      const v = r.status === 200 ? jsonOf(r) : null;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const ids = batchIds(req);
  const item = gets.get(`${route.pattern}/:id`);
  if (ids && item) {
    return async () => {
      const out: Snapshot = new Map();
      for (const id of ids) {
        const v = await get(item, [...req.params, id]);
        if (v) out.set(id, v);
      }
      return out;
    };
  }
  const one = gets.get(route.pattern);
  if (!one || ids) return null;
  return async () => {
    const v = await get(one, req.params);
    return new Map(v ? [[req.params[req.params.length - 1] ?? '', v]] : []);
  };
}

/** The ids a batch update names (`[{ "id": … }, …]`), or null for another body. */
function batchIds(req: Request): string[] | null {
  try {
    const body = JSON.parse(req.body.toString('utf8')) as unknown;
    if (!Array.isArray(body)) return null;
    return [...new Set(body.flatMap((i) => (i && typeof i === 'object' && typeof i.id === 'string' ? [i.id.toLowerCase()] : [])))];
  } catch {
    return null;
  }
}

function jsonOf(r: Reply): unknown {
  if (typeof r.body !== 'string' || (r.headers?.['Content-Type'] && !r.headers['Content-Type'].includes('json'))) return null;
  try {
    return JSON.parse(r.body) as unknown;
  } catch {
    return null;
  }
}

const listOf = (body: unknown, field: string): unknown[] | null => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  return Array.isArray(v) ? v : null;
};

/** A batch answered with issues only (`{ created: [], issues: […] }`): nothing changed, nothing to record. */
function changedNothing(body: unknown): boolean {
  const lists = ['created', 'updated', 'deleted'].map((f) => listOf(body, f)).filter((l) => l !== null);
  return lists.length > 0 && lists.every((l) => l!.length === 0);
}

function idsOf(req: Request, body: unknown, itemParam: number, changes: Changes | null): string[] {
  if (itemParam >= 0) return [req.params[itemParam]!.toLowerCase()];
  const listed = ['created', 'updated', 'deleted'].flatMap((f) => listOf(body, f) ?? []);
  const fromReply = listed.flatMap((i) => {
    const o = (i ?? {}) as Record<string, unknown>;
    const id = typeof o.id === 'string' ? o.id : typeof o.key === 'string' ? o.key : null;
    return id ? [id] : [];
  });
  if (fromReply.length) return fromReply;
  if (body && typeof body === 'object' && typeof (body as { id?: unknown }).id === 'string') return [(body as { id: string }).id];
  const queried = req.query.getAll('ids').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (queried.length) return queried;
  return changes ? Object.keys(changes).filter(Boolean) : [];
}

/** An update that only switched `status` is named for what it did. */
function actionOf(base: string, changes: Changes | null): string {
  if (base !== 'update' || !changes) return base;
  const fields = Object.values(changes).flatMap((c) => Object.keys(c));
  const status = Object.values(changes).map((c) => c.status?.after);
  if (fields.length && fields.every((f) => f === 'status' || f === 'updated')) {
    if (status.every((s) => s === 'inactive')) return 'revoke';
    if (status.every((s) => s === 'active')) return 'reactivate';
  }
  return base;
}

/** The top-level fields whose values differ, per resource, secrets masked. */
function diff(before: Snapshot, after: Snapshot): Changes {
  const out: Changes = {};
  for (const [id, b] of before) {
    const a = after.get(id);
    if (!a) continue;
    const fields: Changes[string] = {};
    for (const f of new Set([...Object.keys(b), ...Object.keys(a)])) {
      if (JSON.stringify(b[f]) === JSON.stringify(a[f])) continue;
      fields[f] = SECRET_FIELD.test(f) ? { before: MASK, after: MASK } : { before: masked(b[f]), after: masked(a[f]) };
    }
    if (Object.keys(fields).length) out[id] = fields;
  }
  return out;
}

/** A value with every secret in it masked (by field name, or by shape). */
export function masked(v: unknown): unknown {
  if (typeof v === 'string') return API_KEY_VALUE.test(v) ? MASK : v;
  if (Array.isArray(v)) return v.map(masked);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) ? MASK : masked(x)]));
  }
  return v;
}
