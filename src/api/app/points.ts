import { withConfig } from '../../engine';
import { Ctx, identify } from '../../context';
import { intParam } from '../../http/body';
import { notFound, invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { boostJson, BoostConfig, filtersMatch, levelFor, levelJson, PointsSystemConfig, systemJson, triggerAppJson, triggerNames } from '../../domain/points';
import { localDate, utcDate } from '../../domain/time';
import type { TenantConfig } from '../../store/tenant-config';
import { postgresThrough, readUser } from '../../services/user-calls';
import { recentAwardsJson } from '../../services/recent-reads';
import { recentAwardsField } from '../../domain/recent-history';
import { attributeQuery } from '../../services/user-input';
import { eventSummary, POINTS_AWARDS } from './event-summary';
import type { PointsRange } from '../../wire/app';
import { recentAwards, userTotals } from '../../store/points-awards';
import { attributesIn, pointsField, zoneIn } from '../../domain/user-hash';

function systemOf(cfg: TenantConfig, key: string): PointsSystemConfig {
  const s = cfg.systemsByKey.get(key);
  if (!s) throw notFound(`Points system "${key}" not found`);
  return s;
}


export function pointsReadRoutes(ctx: Ctx): Route[] {
  /** The tenant's config and the system named in the path. */
  const systemFor = async (req: Request) => {
    const { tenant } = await identify(ctx, req);
    const cfg = await withConfig(ctx.configs, tenant, async (c) => {
      systemOf(c, req.params[0]!);
      return c;
    });
    return { tenant, cfg, system: systemOf(cfg, req.params[0]!) };
  };

  return [
    {
      method: 'get',
      pattern: '/v1/users/:id/points/:key',
      handler: async (req) => {
        const n = intParam(req.query, 'awards', 10, 1, 100);
        const key = req.params[1]!;
        const u = await readUser(ctx, req, { recent: (cfg) => { const s = cfg.systemsByKey.get(key); return s ? recentAwardsField(s.slot) : ''; } });
        const s = systemOf(u.cfg, key);
        const held = u.fields.get(pointsField(s.slot));
        const total = Number(held ?? 0);
        const level = levelFor(s.levels, total);
        // Every award writes the system's total into the user hash: without
        // one there is no award to look up. Else the user's newest awards
        // kept in Redis, when they reach as far as asked.
        const recent = held === undefined ? [] : recentAwardsJson(u.cfg, s, u.recent, u.tracked, n);
        if (recent) return reply(200, { ...systemJson(s), total, level: level ? levelJson(level) : null, awards: recent });
        await postgresThrough(ctx, u);
        const rows = await recentAwards(ctx.db, u.tenant.id, u.id, s.id, n);
        return reply(200, {
          ...systemJson(s),
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
              boosts: a.boosts.flatMap((id) => {
                const b = u.cfg.boostsById.get(id);
                return b ? [boostJson(b, a.localDate)] : [];
              }),
            };
          }),
        });
      },
    },
    {
      method: 'get',
      pattern: '/v1/users/:id/points/:key/event-summary',
      handler: async (req) => {
        const u = await readUser(ctx, req, { postgres: true });
        const s = systemOf(u.cfg, req.params[1]!);
        return reply(200, await eventSummary(ctx.db, POINTS_AWARDS, u.tenant.id, u.id, s.id, req.query));
      },
    },
    {
      method: 'get',
      pattern: '/v1/users/:id/points/:key/boosts',
      handler: async (req) => {
        const u = await readUser(ctx, req);
        const s = systemOf(u.cfg, req.params[1]!);
        const today = localDate(ctx.clock.now(), zoneIn(u.fields, u.cfg.defaultZone));
        const attrs = attributesIn(u.fields);
        const applies = (b: BoostConfig) => (b.userId ? b.userId === u.id : filtersMatch(b.userAttributes, attrs));
        return reply(200, s.boosts.filter((b) => applies(b) && boostJson(b, today).status === 'active').map((b) => boostJson(b, today)));
      },
    },
    {
      method: 'get',
      pattern: '/v1/points/:key',
      handler: async (req) => {
        const { cfg, system } = await systemFor(req);
        return reply(200, {
          ...systemJson(system),
          triggers: system.triggers.filter((t) => t.status === 'active').map((t) => triggerAppJson(t, triggerNames(cfg))),
        });
      },
    },
    {
      method: 'get',
      pattern: '/v1/points/:key/levels',
      handler: async (req) => reply(200, (await systemFor(req)).system.levels.map(levelJson)),
    },
    {
      method: 'get',
      pattern: '/v1/points/:key/boosts',
      handler: async (req) => {
        const { system } = await systemFor(req);
        // Trophy documents no 422 here: anything but `true` reads as false.
        const includeFinished = req.query.get('includeFinished') === 'true';
        const today = utcDate(ctx.clock.now());
        return reply(200, system.boosts.filter((b) => !b.userId).map((b) => boostJson(b, today)).filter((b) => includeFinished || b.status !== 'finished'));
      },
    },
    {
      method: 'get',
      pattern: '/v1/points/:key/summary',
      handler: async (req) => {
        const { tenant, system } = await systemFor(req);
        await ctx.durable.all(tenant);
        const totals = await userTotals(ctx.db, tenant.id, system.id, attributeQuery(req.query));
        return reply(200, histogram(totals));
      },
    },
    {
      method: 'get',
      pattern: '/v1/points/:key/level-summary',
      handler: async (req) => {
        const { tenant, system } = await systemFor(req);
        if (system.levels.length === 0) throw invalid(`Points system "${system.key}" has no levels`);
        await ctx.durable.all(tenant);
        const totals = await userTotals(ctx.db, tenant.id, system.id, {});
        const counts = new Map<string, number>();
        for (const t of totals) {
          const l = levelFor(system.levels, t);
          if (l) counts.set(l.id, (counts.get(l.id) ?? 0) + 1);
        }
        return reply(200, system.levels.map((l) => ({ level: levelJson(l), users: counts.get(l.id) ?? 0 })));
      },
    },
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
