import typia from 'typia';
import { Ctx, identify } from '../../context';
import { requireUser } from '../../auth/auth';
import { check, jsonBody } from '../../http/body';
import { notFound, invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { userJson, userPatch } from '../../domain/users';
import type { Tenant } from '../../store/tenants';
import type { MetricConfig, TenantConfig } from '../../store/tenant-config';
import { checkUserAttributes, zoneOf } from '../../services/user-input';
import { readUser, writeFields } from '../../services/user-calls';
import type { UserInput, UserWithId } from '../../wire/app';
import { eventSummary, METRIC_EVENTS } from './event-summary';
import { achievementJson } from '../../domain/achievements';
import { totalField, achievedField } from '../../domain/user-hash';
import { storedEmail } from '../../engine';

const validateUserWithId = typia.createValidate<UserWithId>();
const validateUserInput = typia.createValidate<UserInput>();

export function userRoutes(ctx: Ctx): Route[] {
  return [
    { method: 'post', pattern: '/v1/users', body: true, documents400: true, handler: (req) => createUser(ctx, req) },
    { method: 'get', pattern: '/v1/users/:id', documents400: true, handler: (req) => getUser(ctx, req) },
    { method: 'put', pattern: '/v1/users/:id', body: true, documents400: true, handler: (req) => writeUser(ctx, req, 'upsert') },
    { method: 'patch', pattern: '/v1/users/:id', body: true, documents400: true, handler: (req) => writeUser(ctx, req, 'update') },
    { method: 'get', pattern: '/v1/users/:id/metrics', handler: (req) => userMetrics(ctx, req) },
    { method: 'get', pattern: '/v1/users/:id/metrics/:key', handler: (req) => userMetric(ctx, req) },
    { method: 'get', pattern: '/v1/users/:id/metrics/:key/event-summary', handler: (req) => metricSummary(ctx, req) },
  ];
}

async function createUser(ctx: Ctx, req: Request) {
  const { principal, tenant } = await identify(ctx, req);
  const body = check(validateUserWithId, jsonBody(req));
  requireUser(principal, body.id);
  const user = await upsert(ctx, tenant, body.id, body, 'upsert');
  return reply(201, user);
}

async function writeUser(ctx: Ctx, req: Request, mode: 'upsert' | 'update') {
  const { principal, tenant } = await identify(ctx, req);
  const id = req.params[0]!;
  requireUser(principal, id);
  const body = check(validateUserInput, jsonBody(req));
  return reply(200, await upsert(ctx, tenant, id, body, mode));
}

async function upsert(ctx: Ctx, tenant: Tenant, id: string, input: UserInput, mode: 'upsert' | 'update') {
  const zone = zoneOf(input);
  // Trophy's rule: subscribing to emails needs an address, sent now or stored before.
  if (input.subscribeToEmails === true && !input.email && !(await storedEmail(ctx.redis, ctx.keys.tenant(tenant.slot), id))) {
    throw invalid('subscribeToEmails needs an email address: send email with it, or set one first');
  }
  const fields = await writeFields(ctx, tenant, id, userPatch(input, zone), mode, zone, (cfg) => checkUserAttributes(cfg, input));
  return userJson(id, fields);
}




async function getUser(ctx: Ctx, req: Request) {
  const u = await readUser(ctx, req);
  return reply(200, userJson(u.id, u.fields));
}

/** A user's total of a metric, with the metric's active achievements and when the user completed each. */
function metricJson(cfg: TenantConfig, m: MetricConfig, fields: Map<string, string>) {
  const achievements = [...cfg.achievementsById.values()]
    .filter((a) => a.trigger === 'metric' && a.metricId === m.id && (a.status === 'active' || fields.has(achievedField(a.slot))))
    .sort((x, y) => x.metricValue! - y.metricValue!)
    .map((a) => {
      const at = fields.get(achievedField(a.slot));
      return achievementJson(a, () => m.name, at ? Number(at) : null);
    });
  return { id: m.id, key: m.key, name: m.name, status: 'active', current: Number(fields.get(totalField(m.slot)) ?? 0), achievements };
}

function metricOf(cfg: TenantConfig, key: string): MetricConfig {
  const m = cfg.metricsByKey.get(key);
  if (!m) throw notFound(`Metric "${key}" not found`);
  return m;
}

async function userMetrics(ctx: Ctx, req: Request) {
  const u = await readUser(ctx, req);
  const metrics = [...u.cfg.metricsByKey.values()].sort((a, b) => a.slot - b.slot);
  return reply(200, metrics.map((m) => metricJson(u.cfg, m, u.fields)));
}

async function userMetric(ctx: Ctx, req: Request) {
  const u = await readUser(ctx, req);
  return reply(200, metricJson(u.cfg, metricOf(u.cfg, req.params[1]!), u.fields));
}

async function metricSummary(ctx: Ctx, req: Request) {
  const u = await readUser(ctx, req, { postgres: true });
  const metric = metricOf(u.cfg, req.params[1]!);
  return reply(200, await eventSummary(ctx.db, METRIC_EVENTS, u.tenant.id, u.id, metric.id, req.query));
}
