import typia from 'typia';
import type { Ctx } from '../../context';
import { notFound } from '../../errors';
import { io, ok, route } from '../define';
import {
  cohortId, LeagueConfig, leagueField, parseCohortId, parsePlace, runAt, runDates, runParams, tierAt, zoneOf,
} from '../../domain/leagues';
import type { TenantConfig } from '../../store/tenant-config';
import { readUser } from '../../services/user-calls';
import { liveCohort, tierNow } from '../../services/league-state';
import { LEAGUES_ABOUT as about, type LeagueCohort, type LeagueHistoryEntry, type LeagueHistoryQuery, type LeagueZoneName, type UserLeague } from '../../wire/leagues';
import { cohortResults, leagueHistory } from '../../store/league-results';
import { userNames } from '../../engine';

/** Leagues read by the application (a Laurel extension, docs/leagues.md). */
export function leagueRoutes(ctx: Ctx) {
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
    route({
      method: 'get', path: '/v1/users/:id/leagues/:key', operationId: 'users_league', tag: 'Leagues', auth: 'application',
      summary: "A user's tier, cohort and zone in a league's current run", description: about,
      responses: { 200: { description: 'The standing', schema: typia.json.schema<UserLeague>() } },
      handler: async ({ principal, tenant, params }) => {
        const u = await readUser(ctx, { principal, tenant }, params.id);
        const l = leagueOf(u.cfg, params.key);
        const tk = ctx.keys.tenant(u.tenant.slot);
        const run = runAt(l, ctx.clock.now());
        const p = runParams(l, run);
        const place = parsePlace(u.fields.get(leagueField(l.slot)));
        let cohort: { id: string; size: number; rankings: Awaited<ReturnType<typeof liveCohort>> } | null = null;
        let rank: number | null = null;
        let value: number | null = null;
        let zone: LeagueZoneName = 'stay';
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
        return ok({
          key: l.key, name: l.name, run: runDates(l, run), tier: { key: t.key, name: t.name, index: t.index },
          cohort, rank, value, zone, lastResult: (await history(u.tenant.id, l, u.id, 1))[0] ?? null,
        });
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id/leagues/:key/history', operationId: 'users_league_history', tag: 'Leagues', auth: 'application',
      summary: "A user's results of finished runs, newest first", description: about,
      query: io(typia.http.createValidateQuery<LeagueHistoryQuery>(), typia.json.schema<LeagueHistoryQuery>()),
      responses: { 200: { description: 'The results', schema: typia.json.schema<LeagueHistoryEntry[]>() } },
      handler: async ({ principal, tenant, params, query }) => {
        const u = await readUser(ctx, { principal, tenant }, params.id);
        const l = leagueOf(u.cfg, params.key);
        return ok(await history(u.tenant.id, l, u.id, query.limit ?? 10));
      },
    }),
    route({
      method: 'get', path: '/v1/leagues/:key/cohorts/:cohortId', operationId: 'leagues_cohort', tag: 'Leagues', auth: 'application',
      summary: "A cohort's rankings, of the current run or a finished one", description: about,
      responses: { 200: { description: 'The cohort', schema: typia.json.schema<LeagueCohort>() } },
      handler: async ({ tenant, params }) => {
        const l = leagueOf(await ctx.configs.get(tenant), params.key);
        const id = parseCohortId(params.cohortId);
        if (!id) throw notFound(`Cohort "${params.cohortId}" not found`);
        const tk = ctx.keys.tenant(tenant.slot);
        // Live until its run's results are durable and its keys freed; from Postgres after.
        let rankings = await liveCohort(ctx, tk, tk.cohort(l.slot, id.run, id.tier, id.no));
        if (!rankings.length) {
          const rows = await cohortResults(ctx.db, tenant.id, l.id, id.run, params.cohortId);
          if (!rows.length) throw notFound(`Cohort "${params.cohortId}" not found`);
          const names = await userNames(ctx.redis, tk, rows.map((r) => r.userId));
          rankings = rows.map((r, i) => ({ rank: r.rank, userId: r.userId, userName: names[i] ?? null, value: r.value }));
        }
        const t = tierAt(runParams(l, id.run), id.tier);
        return ok({ id: params.cohortId, tier: { key: t.key, name: t.name, index: t.index }, run: runDates(l, id.run), rankings });
      },
    }),
  ];
}
