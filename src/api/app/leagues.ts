import { Ctx, identify } from '../../context';
import { notFound } from '../../errors';
import { intParam } from '../../http/body';
import { reply, Route } from '../../http/server';
import {
  cohortId, LeagueConfig, leagueField, parseCohortId, parsePlace, runAt, runDates, runParams, tierAt, zoneOf,
} from '../../domain/leagues';
import type { TenantConfig } from '../../store/tenant-config';
import { readUser } from '../../services/user-calls';
import { liveCohort, tierNow } from '../../services/league-state';
import type { LeagueHistoryEntry } from '../../wire/leagues';
import { cohortResults, leagueHistory } from '../../store/league-results';
import { userNames } from '../../engine';

/** Leagues read by the application (a Laurel extension, docs/leagues.md). */
export function leagueRoutes(ctx: Ctx): Route[] {
  const leagueOf = (cfg: TenantConfig, key: string): LeagueConfig => {
    const l = cfg.leaguesByKey.get(key);
    if (!l) throw notFound(`League "${key}" not found`);
    return l;
  };
  const history = async (tenantId: string, l: LeagueConfig, userId: string, limit: number): Promise<LeagueHistoryEntry[]> =>
    (await leagueHistory(ctx.db, tenantId, l.id, userId, limit)).map((r) => ({
      ...runDates(l, r.run), cohortId: r.cohortId, tier: r.tierKey, rank: r.rank, value: r.value, outcome: r.outcome, newTier: r.newTierKey,
    }));

  return [
    {
      method: 'get',
      pattern: '/v1/users/:id/leagues/:key',
      handler: async (req) => {
        const u = await readUser(ctx, await identify(ctx, req), req.params[0]!);
        const l = leagueOf(u.cfg, req.params[1]!);
        const tk = ctx.keys.tenant(u.tenant.slot);
        const run = runAt(l, ctx.clock.now());
        const p = runParams(l, run);
        const place = parsePlace(u.fields.get(leagueField(l.slot)));
        let cohort: { id: string; size: number; rankings: Awaited<ReturnType<typeof liveCohort>> } | null = null;
        let rank: number | null = null;
        let value: number | null = null;
        let zone = 'stay';
        let tier: number;
        if (place && place.run === run) {
          tier = place.tier;
          const rankings = await liveCohort(ctx, tk, tk.cohort(l.slot, run, place.tier, place.no));
          cohort = { id: cohortId(run, place.tier, place.no), size: rankings.length, rankings };
          const mine = rankings.find((r) => r.userId === u.id);
          if (mine) {
            rank = mine.rank;
            value = mine.value;
            zone = zoneOf(mine.rank, rankings.length, p.cohortSize, tierAt(p, tier));
          }
        } else {
          tier = await tierNow(ctx, tk, l, p, u.id, place);
        }
        const t = tierAt(p, tier);
        return reply(200, {
          key: l.key, name: l.name, run: runDates(l, run), tier: { key: t.key, name: t.name, index: t.index },
          cohort, rank, value, zone, lastResult: (await history(u.tenant.id, l, u.id, 1))[0] ?? null,
        });
      },
    },
    {
      method: 'get',
      pattern: '/v1/users/:id/leagues/:key/history',
      handler: async (req) => {
        const u = await readUser(ctx, await identify(ctx, req), req.params[0]!);
        const l = leagueOf(u.cfg, req.params[1]!);
        return reply(200, await history(u.tenant.id, l, u.id, intParam(req.query, 'limit', 10, 1, 100)));
      },
    },
    {
      method: 'get',
      pattern: '/v1/leagues/:key/cohorts/:cohortId',
      handler: async (req) => {
        const { tenant } = await identify(ctx, req);
        const l = leagueOf(await ctx.configs.get(tenant), req.params[0]!);
        const id = parseCohortId(req.params[1]!);
        if (!id) throw notFound(`Cohort "${req.params[1]}" not found`);
        const tk = ctx.keys.tenant(tenant.slot);
        // Live until its run's results are durable and its keys freed; from Postgres after.
        let rankings = await liveCohort(ctx, tk, tk.cohort(l.slot, id.run, id.tier, id.no));
        if (!rankings.length) {
          const rows = await cohortResults(ctx.db, tenant.id, l.id, id.run, req.params[1]!);
          if (!rows.length) throw notFound(`Cohort "${req.params[1]}" not found`);
          const names = await userNames(ctx.redis, tk, rows.map((r) => r.userId));
          rankings = rows.map((r, i) => ({ rank: r.rank, userId: r.userId, userName: names[i] ?? null, value: r.value }));
        }
        const t = tierAt(runParams(l, id.run), id.tier);
        return reply(200, { id: req.params[1], tier: { key: t.key, name: t.name, index: t.index }, run: runDates(l, id.run), rankings });
      },
    },
  ];
}
