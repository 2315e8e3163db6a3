import typia from 'typia';
import type { Ctx } from '../../context';
import { requireAdmin } from '../../auth/auth';
import { boolParam, check, jsonBody } from '../../http/body';
import { invalid, notFound } from '../../errors';
import { reply, Reply, Request, Route } from '../../http/server';
import { tx } from '../../store/db';
import { maybeConfigTx } from '../../store/config-tx';
import { configVersion, listVersions, recordVersion, versionDocument } from '../../store/config-history';
import type { Tenant } from '../../store/tenants';
import type { ConfigDocument, ConfigHistoryEntry, ConfigPlan, ConfigProblem, ConfigRefused, ConfigRevert } from '../../wire/admin';
import { applyResources, changeCount, diffResources, parseResources, readResources, resourcesJson } from './config/document';

const validateRevert = typia.createValidate<ConfigRevert>();

/** The admin principal's key id and tenant. */
async function caller(ctx: Ctx, req: Request): Promise<{ tenant: Tenant; keyId: string }> {
  const principal = await ctx.auth.authenticate(req.apiKey);
  requireAdmin(principal);
  const tenant = await ctx.tenants.resolve(principal, req.tenantId);
  // The key's id as the admin keys list and the audit log name it.
  return { tenant, keyId: (await ctx.auth.actor(req.apiKey))?.id ?? 'unknown' };
}

/** `If-Match: <version>` (the bare integer; quotes tolerated), or undefined without the header. */
function ifMatch(req: Request): number | undefined {
  const raw = req.ifMatch;
  if (!raw) return undefined;
  const v = raw.trim().replace(/^"(.*)"$/, '$1');
  if (!/^\d{1,15}$/.test(v)) throw invalid('If-Match must be a config version (an integer)');
  return Number(v);
}

const refused = (problems: ConfigProblem[]): Reply =>
  reply(422, { error: `The document has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was applied`, problems } satisfies ConfigRefused);

interface Apply {
  tenant: Tenant;
  keyId: string;
  body: unknown;
  prune: boolean;
  /** Apply (a new version) or only plan (nothing kept). */
  commit: boolean;
  expected?: number;
}

/**
 * Plan or apply a document in one config transaction: the writes go through
 * the Admin API's own functions, the plan is what a pull shows before against
 * after, and a plan (or a document that changes nothing) is rolled back.
 */
async function run(ctx: Ctx, a: Apply): Promise<Reply> {
  const { resources, problems } = parseResources(a.body);
  return maybeConfigTx(ctx, a.tenant, async (c) => {
    const version = await configVersion(c, a.tenant.id);
    if (a.expected !== undefined && a.expected !== version) {
      return { commit: false, value: reply(412, { error: `The configuration is at version ${version}, not ${a.expected}; pull it again` }) };
    }
    const before = await readResources(c, a.tenant.id, ctx.secrets);
    // Invalid parts are left out of `resources`: the references of the rest are still checked, so every problem is named.
    const found = await applyResources({ ctx, c, scope: { tenant: a.tenant, parentId: null }, prune: a.prune }, before, resources, problems);
    if (found.length) return { commit: false, value: refused(found) };
    const after = await readResources(c, a.tenant.id, ctx.secrets);
    const plan = diffResources(before, after, version);
    if (!a.commit || !changeCount(plan)) return { commit: false, value: reply(200, plan) };
    // The version the commit makes (maybeConfigTx bumps it once).
    plan.version = version + 1;
    const document = { version: plan.version, resources: resourcesJson(after) };
    await recordVersion(c, a.tenant.id, { version: plan.version, at: new Date(ctx.clock.now()), keyId: a.keyId, changes: changeCount(plan) }, document);
    return { commit: true, value: reply(200, plan satisfies ConfigPlan) };
  });
}

/**
 * Environments: the tenant's whole configuration as one document (no ids,
 * references by key, no secrets), planned, applied as one version, listed
 * and reverted.
 */
export function configRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/config',
      handler: async (req) => {
        const { tenant } = await caller(ctx, req);
        const doc = await tx(
          ctx.db,
          async (c): Promise<ConfigDocument> => ({ version: await configVersion(c, tenant.id), resources: resourcesJson(await readResources(c, tenant.id, ctx.secrets)) }),
          'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        );
        return reply(200, doc);
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/config/plan',
      body: true,
      handler: async (req) => {
        const { tenant, keyId } = await caller(ctx, req);
        return run(ctx, { tenant, keyId, body: jsonBody(req), prune: boolParam(req.query, 'prune'), commit: false });
      },
    },
    {
      method: 'put',
      pattern: '/admin/v1/config',
      body: true,
      handler: async (req) => {
        const { tenant, keyId } = await caller(ctx, req);
        return run(ctx, { tenant, keyId, body: jsonBody(req), prune: boolParam(req.query, 'prune'), commit: true, expected: ifMatch(req) });
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/config/history',
      handler: async (req) => {
        const { tenant } = await caller(ctx, req);
        const list = await listVersions(ctx.db, tenant.id);
        return reply(200, list.map((v): ConfigHistoryEntry => ({ version: v.version, at: v.at.toISOString(), keyId: v.keyId, changes: v.changes })));
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/config/revert',
      body: true,
      handler: async (req) => {
        const { tenant, keyId } = await caller(ctx, req);
        const { version } = check(validateRevert, jsonBody(req));
        const document = await versionDocument(ctx.db, tenant.id, version);
        if (!document) throw notFound(`No configuration document made version ${version}`);
        return run(ctx, { tenant, keyId, body: document, prune: true, commit: true, expected: ifMatch(req) });
      },
    },
  ];
}

