import typia from 'typia';
import type { Ctx } from '../../context';
import { boolParam } from '../../http/body';
import { invalid, notFound } from '../../errors';
import { reply, type Request } from '../../http/server';
import { io, ok, prebuilt, route, type Io, type Prebuilt } from '../define';
import { tx } from '../../store/db';
import { maybeConfigTx } from '../../store/config-tx';
import { configVersion, listVersions, recordVersion, versionDocument } from '../../store/config-history';
import type { Tenant } from '../../store/tenants';
import type { ConfigDocument, ConfigHistoryEntry, ConfigPlan, ConfigProblem, ConfigQuery, ConfigRefused, ConfigRevert } from '../../wire/admin';
import { applyResources, changeCount, diffResources, parseResources, readResources, resourcesJson } from './config/document';

/** The calling key's id, as the admin keys list and the audit log name it. */
const keyIdOf = async (ctx: Ctx, req: Request) => (await ctx.auth.actor(req.apiKey))?.id ?? 'unknown';

/** `If-Match: <version>` (the bare integer; quotes tolerated), or undefined without the header. */
function ifMatch(req: Request): number | undefined {
  const raw = req.ifMatch;
  if (!raw) return undefined;
  const v = raw.trim().replace(/^"(.*)"$/, '$1');
  if (!/^\d{1,15}$/.test(v)) throw invalid('If-Match must be a config version (an integer)');
  return Number(v);
}

/** Refused with every problem named: a body beyond `{ error }`, so answered as built here. */
const refused = (problems: ConfigProblem[]) =>
  prebuilt(reply(422, { error: `The document has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was applied`, problems } satisfies ConfigRefused));

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
async function run(ctx: Ctx, a: Apply): Promise<ReturnType<typeof ok<ConfigPlan>> | Prebuilt> {
  const { resources, problems } = parseResources(a.body);
  return maybeConfigTx<ReturnType<typeof ok<ConfigPlan>> | Prebuilt>(ctx, a.tenant, async (c) => {
    const version = await configVersion(c, a.tenant.id);
    if (a.expected !== undefined && a.expected !== version) {
      return { commit: false, value: prebuilt(reply(412, { error: `The configuration is at version ${version}, not ${a.expected}; pull it again` })) };
    }
    const before = await readResources(c, a.tenant.id, ctx.secrets);
    // Invalid parts are left out of `resources`: the references of the rest are still checked, so every problem is named.
    const found = await applyResources({ ctx, c, scope: { tenant: a.tenant, parentId: null }, prune: a.prune }, before, resources, problems);
    if (found.length) return { commit: false, value: refused(found) };
    const after = await readResources(c, a.tenant.id, ctx.secrets);
    const plan = diffResources(before, after, version);
    if (!a.commit || !changeCount(plan)) return { commit: false, value: ok(plan) };
    // The version the commit makes (maybeConfigTx bumps it once).
    plan.version = version + 1;
    const document = { version: plan.version, resources: resourcesJson(after) };
    await recordVersion(c, a.tenant.id, { version: plan.version, at: new Date(ctx.clock.now()), keyId: a.keyId, changes: changeCount(plan) }, document);
    return { commit: true, value: ok(plan) };
  });
}

/**
 * The document as sent: parseResources checks it, naming the path of every
 * problem (a typia check of the body would name only the first).
 */
const documentBody: Io<unknown> = { validate: (data) => ({ success: true, data }), schema: typia.json.schema<ConfigDocument>() };

/**
 * Environments: the tenant's whole configuration as one document (no ids,
 * references by key, no secrets), planned, applied as one version, listed
 * and reverted.
 */
export function configRoutes(ctx: Ctx) {
  const common = { tag: 'Admin: environments', auth: 'admin' } as const;
  // `prune` is read by boolParam: an empty `prune=` is false there, where a typia query would read it as true (and prune).
  const prune = typia.json.schema<ConfigQuery>();
  const plan = typia.json.schema<ConfigPlan>();
  return [
    route({
      ...common, method: 'get', path: '/admin/v1/config', operationId: 'admin_config_get',
      summary: "The tenant's whole configuration as one document",
      description: 'Metrics, attributes, achievements, points systems (levels, triggers, boosts not aimed at one user), streak settings, ' +
        'leaderboards, retention settings, webhooks, message channels (email, apns, fcm, expo: without their credentials, which a push ' +
        "never changes) and the tenant's own templates, with no ids (references by key: metricKey, pointsSystemKey, prerequisiteKeys…) " +
        'and no secrets, in a fixed order: two pulls of an unchanged tenant are byte-identical. See docs/environments.md.',
      responses: { 200: { description: 'The document, with the config version it was read at', schema: typia.json.schema<ConfigDocument>() } },
      handler: async ({ tenant }) => {
        const doc = await tx(
          ctx.db,
          async (c): Promise<ConfigDocument> => ({ version: await configVersion(c, tenant.id), resources: resourcesJson(await readResources(c, tenant.id, ctx.secrets)) }),
          'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        );
        return ok(doc);
      },
    }),
    route({
      ...common, method: 'post', path: '/admin/v1/config/plan', operationId: 'admin_config_plan',
      summary: 'What applying a document would change, applying nothing',
      description: 'Creations, updates with each changed field (before and after) and deletions (only with prune=true: otherwise what the ' +
        'document lacks stays). 422 with the path of every problem: invalid fields, dangling references, changes the Admin API refuses.',
      queryDoc: prune,
      body: documentBody,
      responses: { 200: { description: 'The plan (version: the one planned against)', schema: plan } },
      handler: async ({ req, tenant, body }) =>
        run(ctx, { tenant, keyId: await keyIdOf(ctx, req), body, prune: boolParam(req.query, 'prune'), commit: false }),
    }),
    route({
      ...common, method: 'put', path: '/admin/v1/config', operationId: 'admin_config_apply',
      summary: 'Apply a document as one new config version',
      description: 'All or nothing: events see the configuration before or after, never a mix. `If-Match: <version>` answers 412 when ' +
        'the tenant changed since; 422 names the path of every problem; either way nothing is applied. A document that changes nothing ' +
        'makes no version. A webhook keeps its secret; a created one gets a new secret (rotate it to read it).',
      queryDoc: prune,
      body: documentBody,
      responses: { 200: { description: 'The plan applied (version: the new one)', schema: plan } },
      handler: async ({ req, tenant, body }) =>
        run(ctx, { tenant, keyId: await keyIdOf(ctx, req), body, prune: boolParam(req.query, 'prune'), commit: true, expected: ifMatch(req) }),
    }),
    route({
      ...common, method: 'get', path: '/admin/v1/config/history', operationId: 'admin_config_history',
      summary: 'The config versions made by applying documents, newest first',
      responses: { 200: { description: 'The versions', schema: typia.json.schema<ConfigHistoryEntry[]>() } },
      handler: async ({ tenant }) => {
        const list = await listVersions(ctx.db, tenant.id);
        return ok(list.map((v): ConfigHistoryEntry => ({ version: v.version, at: v.at.toISOString(), keyId: v.keyId, changes: v.changes })));
      },
    }),
    route({
      ...common, method: 'post', path: '/admin/v1/config/revert', operationId: 'admin_config_revert',
      summary: "Apply an earlier version's document again (pruning what it lacks) as a new version",
      body: io(typia.createValidate<ConfigRevert>(), typia.json.schema<ConfigRevert>()),
      responses: { 200: { description: 'The plan applied', schema: plan } },
      handler: async ({ req, tenant, body: { version } }) => {
        const document = await versionDocument(ctx.db, tenant.id, version);
        if (!document) throw notFound(`No configuration document made version ${version}`);
        return run(ctx, { tenant, keyId: await keyIdOf(ctx, req), body: document, prune: true, commit: true, expected: ifMatch(req) });
      },
    }),
  ];
}
