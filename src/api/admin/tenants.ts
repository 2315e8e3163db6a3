import typia from 'typia';
import type { Ctx } from '../../context';
import { requireAdmin } from '../../auth/auth';
import { idsParam, jsonBody, uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { tx } from '../../store/db';
import { Tenant, tenantJson, withTenantsLocked } from '../../store/tenants';
import { AdminIssue, issueAt, issueFor, page, parseBatch } from './batch';
import { purgeKeys } from '../../redis/purge';
import type { CreateTenant, UpdateTenant } from '../../wire/admin';

const validateCreate = typia.createValidate<CreateTenant>();
const validateUpdate = typia.createValidate<UpdateTenant>();

/** Tenants are account-level: these routes ignore Tenant-ID. */
export function tenantRoutes(ctx: Ctx): Route[] {
  const admin = async (req: Request) => requireAdmin(await ctx.auth.authenticate(req.apiKey));
  return [
    {
      method: 'get',
      pattern: '/admin/v1/tenants',
      handler: async (req) => {
        await admin(req);
        const { limit, skip } = page(req.query);
        return reply(200, (await ctx.tenants.list(limit, skip)).map(tenantJson));
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/tenants/:id',
      handler: async (req) => {
        await admin(req);
        const t = await ctx.tenants.getListed(ctx.db, uuidParam(req.params[0]!));
        if (!t) throw notFound('Tenant not found');
        return reply(200, tenantJson(t));
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/tenants',
      body: true,
      handler: async (req) => {
        await admin(req);
        const { items, issues } = parseBatch(jsonBody(req), validateCreate);
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
        return reply(created.length ? 201 : 200, { created: created.map(tenantJson), issues: sortIssues(issues) });
      },
    },
    {
      method: 'patch',
      pattern: '/admin/v1/tenants',
      body: true,
      handler: async (req) => {
        await admin(req);
        const { items, issues } = parseBatch(jsonBody(req), validateUpdate);
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
        return reply(200, { updated: updated.map(tenantJson), issues });
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/tenants',
      handler: async (req) => {
        await admin(req);
        const ids = idsParam(req.query);
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
        return reply(200, { deleted: deleted.map((t) => ({ id: t.id })), issues });
      },
    },
  ];
}

function sortIssues(issues: AdminIssue[]): AdminIssue[] {
  return issues.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
}
