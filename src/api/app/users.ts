import typia from 'typia';
import { Ctx, identify, STALE, withConfig } from '../../context';
import { Principal, requireUser } from '../../auth/auth';
import { check, jsonBody } from '../../http/body';
import { randomUUID } from 'node:crypto';
import { notFound, unprocessable } from '../../http/errors';
import { localDate } from '../../domain/time';
import { userBoostsArg } from '../../domain/points';
import { reply, Request, Route } from '../../http/server';
import { userReadCall, userUpsertCall } from '../../engine';
import { totalField, userJson, userPatch } from '../../domain/users';
import type { Tenant } from '../../store/tenants';
import type { MetricConfig, TenantConfig } from '../../store/tenant-config';
import { checkUserAttributes, zoneOf } from './user-input';
import type { UserInput, UserWithId } from '../wire/app';
import { eventSummary, METRIC_EVENTS } from './event-summary';
import { achievedField, achievementJson } from '../../domain/achievements';

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
  const fields = await writeFields(ctx, tenant, id, userPatch(input, zone), mode, zone, (cfg) => checkUserAttributes(cfg, input));
  return userJson(id, fields);
}

/** Set fields of an existing user's hash (preferences), in one script call with its change record; the user's fields after. */
export function writeUserFields(ctx: Ctx, tenant: Tenant, id: string, fields: Record<string, string>): Promise<Map<string, string>> {
  return writeFields(ctx, tenant, id, fields, 'update', undefined, () => {});
}

async function writeFields(
  ctx: Ctx, tenant: Tenant, id: string, fields: Record<string, string>, mode: 'upsert' | 'update',
  zone: string | null | undefined, checkInput: (cfg: TenantConfig) => void,
): Promise<Map<string, string>> {
  const patch = JSON.stringify(fields);
  const tk = ctx.keys.tenant(tenant.slot);
  return withConfig(ctx, tenant, async (cfg) => {
    checkInput(cfg);
    const now = ctx.clock.now();
    // Boost dates use the zone sent, else the last one seen (exact for new users, who have no other).
    const date = localDate(now, zone === undefined ? (ctx.zones.get(`${tenant.slot}:${id}`) ?? 'UTC') : (zone ?? 'UTC'));
    const r = await userUpsertCall(ctx.engine, tk, {
      ver: cfg.ver, now, mode, userId: id, patch, program: cfg.program(null), userBoosts: userBoostsArg(cfg.userBoosts.get(id)), date, opId: randomUUID(),
    });
    if (r.code === 'STALE') return STALE;
    if (r.code === 'NOTFOUND') throw notFound(`User "${id}" not found`);
    if (r.code === 'BLOCKED') throw unprocessable(`Not enough points in "${cfg.systemsBySlot.get(Number(r.systemSlot))?.key ?? r.systemSlot}"`);
    if (zone !== undefined) ctx.zones.set(`${tenant.slot}:${id}`, zone ?? 'UTC', 3_600_000);
    return r.fields;
  });
}

/**
 * Read a user's hash with a config that matches it; 404 for an unknown user.
 * With `postgres` the caller goes on to read the user's rows in Postgres:
 * any of the user's change records still unflushed are written first.
 */
export async function readUser(
  ctx: Ctx,
  req: Request,
  opts: { postgres?: boolean } = {},
): Promise<{ principal: Principal; tenant: Tenant; cfg: TenantConfig; id: string; fields: Map<string, string> }> {
  const { principal, tenant } = await identify(ctx, req);
  const id = req.params[0]!;
  requireUser(principal, id);
  const tk = ctx.keys.tenant(tenant.slot);
  const u = await withConfig(ctx, tenant, async (cfg) => {
    const r = await userReadCall(ctx.engine, tk, { ver: cfg.ver, userId: id });
    if (r.code === 'STALE') return STALE;
    if (!r.fields.has('c')) throw notFound(`User "${id}" not found`);
    return { principal, tenant, cfg, id, fields: r.fields, unflushed: r.unflushed };
  });
  if (opts.postgres && u.unflushed) await ctx.durable.through(tenant, id, u.unflushed);
  return u;
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
