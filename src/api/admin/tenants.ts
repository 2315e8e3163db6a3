import typia from 'typia';
import type { Ctx } from '../../context';
import { notFound } from '../../errors';
import { tx } from '../../store/db';
import { Tenant, tenantJson, withTenantsLocked } from '../../store/tenants';
import { AdminIssue, batchIo, issueAt, issueFor } from './batch';
import { collectionRoutes } from './collection';
import { purgeKeys } from '../../redis/purge';
import type { AdminTenant, Batch, Created, CreateTenant, Updated, UpdateTenant } from '../../wire/admin';

/** Tenants are account-level: these routes ignore Tenant-ID. */
export function tenantRoutes(ctx: Ctx) {
  return collectionRoutes({
    path: '/admin/v1/tenants', name: 'tenants', one: 'tenant', many: 'tenants', tag: 'Admin: tenants', tenant: false,
    item: typia.json.schema<AdminTenant>(), items: typia.json.schema<AdminTenant[]>(),
    create: batchIo(typia.createValidate<CreateTenant>(), typia.json.schema<Batch<CreateTenant>>()), created: typia.json.schema<Created<AdminTenant>>(),
    update: batchIo(typia.createValidate<UpdateTenant>(), typia.json.schema<Batch<UpdateTenant>>()), updated: typia.json.schema<Updated<AdminTenant>>(),
    onList: async (_, { limit, skip }) => (await ctx.tenants.list(limit, skip)).map(tenantJson),
    onGet: async (_, id) => {
      const t = await ctx.tenants.getListed(ctx.db, id);
      if (!t) throw notFound('Tenant not found');
      return tenantJson(t);
    },
    onCreate: async ({ body: { items, issues } }) => {
      const created = await withTenantsLocked(ctx.db, async (c) => {
        const out: Tenant[] = [];
        for (const { index, item } of items) {
          if (await ctx.tenants.customerIdTaken(c, item.customerId)) {
            issues.push(issueAt(index, `Customer ID "${item.customerId}" already exists`));
          } else out.push(await ctx.tenants.insert(c, item.customerId, item.name));
        }
        return out;
      });
      await ctx.broadcast('tenants');
      return { created: created.map(tenantJson), issues };
    },
    onUpdate: async ({ body: { items, issues } }) => {
      const updated = await withTenantsLocked(ctx.db, async (c) => {
        const out: Tenant[] = [];
        for (const { item } of items) {
          const id = item.id.toLowerCase();
          if (!(await ctx.tenants.getListed(c, id))) issues.push(issueFor(id, 'Tenant not found'));
          else if (item.customerId !== undefined && (await ctx.tenants.customerIdTaken(c, item.customerId, id))) {
            issues.push(issueFor(id, `Customer ID "${item.customerId}" already exists`));
          } else out.push(await ctx.tenants.update(c, id, item));
        }
        return out;
      });
      await ctx.broadcast('tenants');
      return { updated: updated.map(tenantJson), issues };
    },
    onDelete: async (_, ids) => {
      const deleted: Tenant[] = [];
      const issues: AdminIssue[] = [];
      for (const id of ids) {
        const t = await tx(ctx.db, (c) => ctx.tenants.remove(c, id));
        if (!t) issues.push(issueFor(id, 'Tenant not found'));
        else deleted.push(t);
      }
      // Here at once (the broadcast reaches this process a moment later too): the tenant's keys answer 401 from now on.
      ctx.tenants.forget();
      await ctx.broadcast('tenants');
      // The rows are gone (and with them every config object); now drop the hot state.
      for (const t of deleted) {
        ctx.configs.forget(t.slot);
        await purgeKeys(ctx.redis, ctx.keys.tenant(t.slot).all);
      }
      return { deleted: deleted.map((t) => ({ id: t.id })), issues };
    },
  });
}
