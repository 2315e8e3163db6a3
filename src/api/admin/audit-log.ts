import typia from 'typia';
import type { Ctx } from '../../context';
import { intParam, isUuid } from '../../http/body';
import { invalid } from '../../errors';
import { ok, route } from '../define';
import type { AuditRow } from '../../store/audit';
import type { AuditEntry, AuditPage, AuditQuery } from '../../wire/admin';

const entryJson = (r: AuditRow): AuditEntry => ({
  id: r.id, time: r.at.toISOString(), keyId: r.keyId, keyPrefix: r.keyPrefix, tenantId: r.tenantId, method: r.method, route: r.route,
  path: r.path, resource: r.resource, resourceIds: r.resourceIds, action: r.action, status: r.status, changes: r.changes,
});

/** A page's last entry, as the opaque cursor of the next: its time (ms) and id. */
const cursorOf = (r: AuditRow) => Buffer.from(`${r.at.getTime()}:${r.id}`).toString('base64url');
function parseCursor(raw: string): { at: Date; id: string } {
  const m = /^(\d{1,15}):(\d{1,19})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!m) throw invalid('cursor is not one this API gave');
  return { at: new Date(Number(m[1])), id: m[2]! };
}
function timeParam(q: URLSearchParams, name: string): Date | undefined {
  const raw = q.get(name);
  if (!raw) return undefined;
  const d = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}(T|$)/.test(raw) || Number.isNaN(d.getTime())) throw invalid(`${name} must be an ISO 8601 time`);
  return d;
}
function textParam(q: URLSearchParams, name: string): string | undefined {
  const raw = q.get(name);
  if (!raw) return undefined;
  if (raw.length > 100) throw invalid(`${name} must be at most 100 characters`);
  return raw;
}

/** The audit log, newest first (account-level: Tenant-ID does not apply; `tenant` filters). */
export function auditLogRoutes(ctx: Ctx) {
  return [
    route({
      method: 'get', path: '/admin/v1/audit-log', operationId: 'admin_audit_log_list', tag: 'Admin: audit log', auth: 'admin', tenant: false,
      summary: 'Changes made through the Admin API, newest first',
      description: 'One entry per successful write: time, acting key (id and prefix), tenant, route, resource, action, and for updates the changed fields before and after (secrets masked). Filters combine; pass `nextCursor` as `cursor` for older entries.',
      // Read here: `tenant` may be a customerId as well as an id, and a time may be a bare date, which the type does not say.
      queryDoc: typia.json.schema<AuditQuery>(),
      responses: { 200: { description: 'A page of entries', schema: typia.json.schema<AuditPage>() } },
      handler: async ({ req: { query: q } }) => {
        const tenant = textParam(q, 'tenant');
        // A tenant by id, or by its customerId as in the Tenant-ID header.
        const tenantId = tenant === undefined ? undefined : isUuid(tenant) ? tenant.toLowerCase() : (await ctx.tenants.resolve({ kind: 'admin' }, tenant)).id;
        const limit = intParam(q, 'limit', 100, 1, 500);
        const cursor = q.get('cursor');
        const rows = await ctx.audit.list({
          tenantId, resource: textParam(q, 'resource'), keyId: textParam(q, 'keyId')?.toLowerCase(), since: timeParam(q, 'since'), until: timeParam(q, 'until'),
          before: cursor ? parseCursor(cursor) : undefined, limit: limit + 1,
        });
        const page = rows.slice(0, limit);
        return ok({ entries: page.map(entryJson), nextCursor: rows.length > limit ? cursorOf(page[page.length - 1]!) : null });
      },
    }),
  ];
}
