import { withConfig } from '../../engine';
import typia from 'typia';
import type { Ctx } from '../../context';
import { notFound, invalid } from '../../errors';
import type { Tenant } from '../../store/tenants';
import { io, ok, route } from '../define';
import { boostJson, BoostConfig, boostsJson, filtersMatch, levelFor, levelJson, PointsSystemConfig, systemJson, triggerAppJson, triggerNames } from '../../domain/points';
import { localDate, utcDate } from '../../domain/time';
import type { TenantConfig } from '../../store/tenant-config';
import { postgresThrough, readUser } from '../../services/user-calls';
import { recentAwardsJson } from '../../services/recent-reads';
import { recentAwardsField } from '../../domain/recent-history';
import { attributeQuery } from '../../services/user-input';
import { eventSummary, POINTS_AWARDS } from './event-summary';
import type { AttributesQuery, IncludeFinishedQuery, LevelSummary, PointsBoost, PointsLevel, PointsRange, PointsSystem, SummaryPoint, UserPoints, UserPointsQuery, EventSummaryQuery } from '../../wire/app';
import { recentAwards, userTotals } from '../../store/points-awards';
import { attributesIn, pointsField, zoneIn } from '../../domain/user-hash';

function systemOf(cfg: TenantConfig, key: string): PointsSystemConfig {
  const s = cfg.systemsByKey.get(key);
  if (!s) throw notFound(`Points system "${key}" not found`);
  return s;
}


export function pointsReadRoutes(ctx: Ctx) {
  /** The tenant's config and the system named in the path. */
  const systemFor = async ({ tenant, params }: { tenant: Tenant; params: { key: string } }) => {
    const cfg = await withConfig(ctx.configs, tenant, async (c) => {
      systemOf(c, params.key);
      return c;
    });
    return { tenant, cfg, system: systemOf(cfg, params.key) };
  };

  return [
    route({
      method: 'get', path: '/v1/users/:id/points/:key', operationId: 'users_points', tag: 'Users', auth: 'application',
      summary: "A user's points in one system: total, level and recent awards",
      query: io(typia.http.createValidateQuery<UserPointsQuery>(), typia.json.schema<UserPointsQuery>()),
      responses: { 200: { description: 'The points', schema: typia.json.schema<UserPoints>() } },
      handler: async (x) => {
        const n = x.query.awards ?? 10;
        const key = x.params.key;
        const u = await readUser(ctx, x, x.params.id, { recent: (cfg) => { const s = cfg.systemsByKey.get(key); return s ? recentAwardsField(s.slot) : ''; } });
        const s = systemOf(u.cfg, key);
        const held = u.fields.get(pointsField(s.slot));
        const total = Number(held ?? 0);
        const level = levelFor(s.levels, total);
        // Every award writes the system's total into the user hash: without
        // one there is no award to look up. Else the user's newest awards
        // kept in Redis, when they reach as far as asked.
        const recent = held === undefined ? [] : recentAwardsJson(u.cfg, s, u.recent, u.tracked, n);
        if (recent) return ok(Object.assign({}, systemJson(s), { total, level: level ? levelJson(level) : null, awards: recent }));
        await postgresThrough(ctx, u);
        const rows = await recentAwards(ctx.db, u.tenant.id, u.id, s.id, n);
        return ok(Object.assign({}, systemJson(s), {
          total,
          level: level ? levelJson(level) : null,
          awards: rows.map((a) => {
            const t = u.cfg.triggersById.get(a.triggerId);
            // Awards from before versions were kept: the trigger as it is now, or its id once deleted.
            const trigger = a.trigger ?? (t ? triggerAppJson(t, triggerNames(u.cfg)) : { id: a.triggerId });
            return {
              id: a.id,
              awarded: a.awarded,
              date: a.at.toISOString(),
              total: a.total,
              trigger,
              boosts: boostsJson(u.cfg, a.boosts, a.localDate),
            };
          }),
        }));
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id/points/:key/event-summary', operationId: 'users_points_event_summary', tag: 'Users', auth: 'application',
      summary: "A user's points per day, week or month",
      queryDoc: typia.json.schema<EventSummaryQuery>(),
      responses: { 200: { description: 'One entry per period', schema: typia.json.schema<SummaryPoint[]>() } },
      handler: async (x) => {
        const u = await readUser(ctx, x, x.params.id, { postgres: true });
        const s = systemOf(u.cfg, x.params.key);
        return ok(await eventSummary(ctx.db, POINTS_AWARDS, u.tenant.id, u.id, s.id, x.req.query));
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id/points/:key/boosts', operationId: 'users_points_boosts', tag: 'Users', auth: 'application',
      summary: 'Boosts active for a user today',
      responses: { 200: { description: 'The boosts', schema: typia.json.schema<PointsBoost[]>() } },
      handler: async (x) => {
        const u = await readUser(ctx, x, x.params.id);
        const s = systemOf(u.cfg, x.params.key);
        const today = localDate(ctx.clock.now(), zoneIn(u.fields, u.cfg.defaultZone));
        const attrs = attributesIn(u.fields);
        const applies = (b: BoostConfig) => (b.userId ? b.userId === u.id : filtersMatch(b.userAttributes, attrs));
        return ok(s.boosts.filter((b) => applies(b) && boostJson(b, today).status === 'active').map((b) => boostJson(b, today)));
      },
    }),
    route({
      method: 'get', path: '/v1/points/:key', operationId: 'points_system', tag: 'Points', auth: 'application',
      summary: 'A points system and its active triggers',
      responses: { 200: { description: 'The system', schema: typia.json.schema<PointsSystem>() } },
      handler: async (x) => {
        const { cfg, system } = await systemFor(x);
        return ok(Object.assign({}, systemJson(system), {
          triggers: system.triggers.filter((t) => t.status === 'active').map((t) => triggerAppJson(t, triggerNames(cfg))),
        }));
      },
    }),
    route({
      method: 'get', path: '/v1/points/:key/levels', operationId: 'points_levels', tag: 'Points', auth: 'application',
      summary: "A points system's levels, lowest first",
      responses: { 200: { description: 'The levels', schema: typia.json.schema<PointsLevel[]>() } },
      handler: async (x) => ok((await systemFor(x)).system.levels.map(levelJson)),
    }),
    route({
      method: 'get', path: '/v1/points/:key/boosts', operationId: 'points_boosts', tag: 'Points', auth: 'application',
      summary: "A points system's boosts for everyone (not the per-user ones)",
      // Trophy documents no 422 here: anything but `true` reads as false (so read by hand).
      queryDoc: typia.json.schema<IncludeFinishedQuery>(),
      responses: { 200: { description: 'The boosts', schema: typia.json.schema<PointsBoost[]>() } },
      handler: async (x) => {
        const { system } = await systemFor(x);
        const includeFinished = x.req.query.get('includeFinished') === 'true';
        const today = utcDate(ctx.clock.now());
        return ok(system.boosts.filter((b) => !b.userId).map((b) => boostJson(b, today)).filter((b) => includeFinished || b.status !== 'finished'));
      },
    }),
    route({
      method: 'get', path: '/v1/points/:key/summary', operationId: 'points_summary', tag: 'Points', auth: 'application',
      summary: 'How many users hold how many points',
      description: 'Negative totals together, zero on its own, then ten ranges of equal, round width. Trails live totals by the flusher lag.',
      query: io(typia.http.createValidateQuery<AttributesQuery>(), typia.json.schema<AttributesQuery>()),
      responses: { 200: { description: 'Users per range', schema: typia.json.schema<PointsRange[]>() } },
      handler: async (x) => {
        const { tenant, system } = await systemFor(x);
        await ctx.durable.all(tenant);
        const totals = await userTotals(ctx.db, tenant.id, system.slot, attributeQuery(x.query.userAttributes));
        return ok(histogram(totals));
      },
    }),
    route({
      method: 'get', path: '/v1/points/:key/level-summary', operationId: 'points_level_summary', tag: 'Points', auth: 'application',
      summary: 'How many users are at each level',
      responses: { 200: { description: 'Users per level', schema: typia.json.schema<LevelSummary[]>() } },
      handler: async (x) => {
        const { tenant, system } = await systemFor(x);
        if (system.levels.length === 0) throw invalid(`Points system "${system.key}" has no levels`);
        await ctx.durable.all(tenant);
        const totals = await userTotals(ctx.db, tenant.id, system.slot, {});
        const counts = new Map<string, number>();
        for (const t of totals) {
          const l = levelFor(system.levels, t);
          if (l) counts.set(l.id, (counts.get(l.id) ?? 0) + 1);
        }
        return ok(system.levels.map((l) => ({ level: levelJson(l), users: counts.get(l.id) ?? 0 })));
      },
    }),
  ];
}

/** A 1, 2 or 5 times a power of ten, at least x. */
function niceStep(x: number): number {
  const p = 10 ** Math.floor(Math.log10(Math.max(1, x)));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

/**
 * Users per points range: negatives together (when any), zero on its own,
 * then ten equal ranges of a round width covering the highest total.
 */
export function histogram(totals: number[]): PointsRange[] {
  const out: PointsRange[] = [];
  const negatives = totals.filter((t) => t < 0);
  if (negatives.length) out.push({ from: Math.min(...negatives), to: -1, users: negatives.length });
  out.push({ from: 0, to: 0, users: totals.filter((t) => t === 0).length });
  const max = Math.max(0, ...totals);
  const step = niceStep(Math.ceil(max / 10));
  for (let i = 0; i < 10; i++) {
    const from = i * step + 1;
    const to = (i + 1) * step;
    out.push({ from, to, users: totals.filter((t) => t >= from && t <= to).length });
  }
  return out;
}
