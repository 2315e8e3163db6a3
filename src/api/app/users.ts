import typia from 'typia';
import type { Ctx } from '../../context';
import { requireUser } from '../../auth/auth';
import { notFound, invalid } from '../../errors';
import { answer, Input, io, ok, route } from '../define';
import { userJson, userPatch } from '../../domain/users';
import type { Tenant } from '../../store/tenants';
import type { MetricConfig, TenantConfig } from '../../store/tenant-config';
import { checkUserAttributes, zoneOf } from '../../services/user-input';
import { readUser, writeFields } from '../../services/user-calls';
import type { EventSummaryQuery, MetricProgress, SummaryPoint, User, UserInput, UserWithId } from '../../wire/app';
import { eventSummary, METRIC_EVENTS } from './event-summary';
import { achievementJson } from '../../domain/achievements';
import { totalField, achievedField } from '../../domain/user-hash';
import { storedEmail } from '../../engine';

type UserInput_ = Input<'/v1/users/:id', undefined, UserInput>;

export function userRoutes(ctx: Ctx) {
  const user = { description: 'The user as saved', schema: typia.json.schema<User>() };
  // PUT and PATCH differ only in what happens to an unknown user.
  const write = {
    path: '/v1/users/:id', tag: 'Users', auth: 'application', documents400: true,
    body: io(typia.createValidate<UserInput>(), typia.json.schema<UserInput>()),
    responses: { 200: user },
  } as const;
  return [
    route({
      method: 'post', path: '/v1/users', operationId: 'users_create', tag: 'Users', auth: 'application', documents400: true,
      summary: 'Create or update a user',
      body: io(typia.createValidate<UserWithId>(), typia.json.schema<UserWithId>()),
      responses: { 201: user },
      handler: async ({ principal, tenant, body }) => {
        requireUser(principal, body.id);
        return answer(201, await upsert(ctx, tenant, body.id, body, 'upsert'));
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id', operationId: 'users_get', tag: 'Users', auth: 'application', documents400: true,
      summary: 'Get a user',
      responses: { 200: { description: 'The user', schema: typia.json.schema<User>() } },
      handler: async (x) => {
        const u = await readUser(ctx, x, x.params.id);
        return ok(userJson(u.id, u.fields));
      },
    }),
    route({ ...write, method: 'put', operationId: 'users_identify', summary: 'Create or update a user (identify)', handler: (x) => writeUser(ctx, x, 'upsert') }),
    route({ ...write, method: 'patch', operationId: 'users_update', summary: 'Update an existing user', handler: (x) => writeUser(ctx, x, 'update') }),
    route({
      method: 'get', path: '/v1/users/:id/metrics', operationId: 'users_all_metrics', tag: 'Users', auth: 'application',
      summary: "A user's total of every metric, with its achievements",
      responses: { 200: { description: 'Every metric', schema: typia.json.schema<MetricProgress[]>() } },
      handler: async (x) => {
        const u = await readUser(ctx, x, x.params.id);
        const metrics = [...u.cfg.metricsByKey.values()].sort((a, b) => a.slot - b.slot);
        return ok(metrics.map((m) => metricJson(u.cfg, m, u.fields)));
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id/metrics/:key', operationId: 'users_single_metric', tag: 'Users', auth: 'application',
      summary: "A user's total of one metric, with its achievements",
      responses: { 200: { description: 'The metric', schema: typia.json.schema<MetricProgress>() } },
      handler: async (x) => {
        const u = await readUser(ctx, x, x.params.id);
        return ok(metricJson(u.cfg, metricOf(u.cfg, x.params.key), u.fields));
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id/metrics/:key/event-summary', operationId: 'users_metric_event_summary', tag: 'Users', auth: 'application',
      summary: "A user's metric per day, week or month",
      description: 'Read from the durable store, so it may trail the live total by the flusher lag.',
      queryDoc: typia.json.schema<EventSummaryQuery>(),
      responses: { 200: { description: 'One entry per period', schema: typia.json.schema<SummaryPoint[]>() } },
      handler: async (x) => {
        const u = await readUser(ctx, x, x.params.id, { postgres: true });
        const metric = metricOf(u.cfg, x.params.key);
        return ok(await eventSummary(ctx.db, METRIC_EVENTS, u.tenant.id, u.id, metric.id, x.req.query));
      },
    }),
  ];
}

async function writeUser(ctx: Ctx, { principal, tenant, params, body }: UserInput_, mode: 'upsert' | 'update') {
  requireUser(principal, params.id);
  return ok(await upsert(ctx, tenant, params.id, body, mode));
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


/** A user's total of a metric, with the metric's active achievements and when the user completed each. */
function metricJson(cfg: TenantConfig, m: MetricConfig, fields: Map<string, string>) {
  const achievements = [...cfg.achievementsById.values()]
    .filter((a) => a.trigger === 'metric' && a.metricId === m.id && (a.status === 'active' || fields.has(achievedField(a.slot))))
    .sort((x, y) => x.metricValue! - y.metricValue!)
    .map((a) => {
      const at = fields.get(achievedField(a.slot));
      return achievementJson(a, () => m.name, at ? Number(at) : null);
    });
  return { id: m.id, key: m.key, name: m.name, status: 'active' as const, current: Number(fields.get(totalField(m.slot)) ?? 0), achievements };
}

function metricOf(cfg: TenantConfig, key: string): MetricConfig {
  const m = cfg.metricsByKey.get(key);
  if (!m) throw notFound(`Metric "${key}" not found`);
  return m;
}
