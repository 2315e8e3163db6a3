import typia from 'typia';
import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { reply, Route } from '../../http/server';
import { batchRoute, getRow, listRows, readDeleteRoutes, scopeOf } from './resource';
import { page } from './batch';
import { createLeague, leagueOfRow, leagues, updateLeague } from './writes/leagues';
import { runAt, runParams } from '../../domain/leagues';
import type { Tenant } from '../../store/tenants';
import type { LeagueRow } from '../../store/leagues';
import { openCohorts } from '../../engine';
import type { CreateLeague, PatchLeague } from '../../wire/leagues';

/**
 * Leagues (a Laurel extension, docs/leagues.md), in the bulk style of the
 * other config collections. Reads carry the current run's cohorts per tier,
 * counted in Redis.
 */
export function leagueAdminRoutes(ctx: Ctx): Route[] {
  const LEAGUES = leagues(() => ctx.clock.now());
  /** Fill each row's cohorts per tier of the run in progress. */
  const withCohorts = async (t: Tenant, rows: LeagueRow[]): Promise<LeagueRow[]> => {
    const runs = rows.map((r) => {
      const l = leagueOfRow(r);
      const run = runAt(l, ctx.clock.now());
      return { slot: r.slot, run, tiers: runParams(l, run).tiers.length };
    });
    const counts = await openCohorts(ctx.redis, ctx.keys.tenant(t.slot), runs);
    return rows.map((r, i) => ({ ...r, cohorts: counts[i] ?? [] }));
  };
  return [
    {
      method: 'get',
      pattern: LEAGUES.path,
      handler: async (req) => {
        const s = await scopeOf(ctx, LEAGUES as never, req);
        const { limit, skip } = page(req.query);
        return reply(200, (await withCohorts(s.tenant, await listRows(ctx.db, LEAGUES, s, limit, skip))).map(LEAGUES.json));
      },
    },
    {
      method: 'get',
      pattern: `${LEAGUES.path}/:id`,
      handler: async (req) => {
        const s = await scopeOf(ctx, LEAGUES as never, req);
        const row = await getRow(ctx.db, LEAGUES, s, uuidParam(req.params[0]!));
        if (!row) throw notFound('League not found');
        return reply(200, LEAGUES.json((await withCohorts(s.tenant, [row]))[0]!));
      },
    },
    ...readDeleteRoutes(ctx, LEAGUES).filter((r) => r.method === 'del'),
    batchRoute(ctx, LEAGUES, 'post', typia.createValidate<CreateLeague>(), (c, s, item) => createLeague(ctx, c, s, item)),
    batchRoute(ctx, LEAGUES, 'patch', typia.createValidate<PatchLeague>(), (c, s, item) => updateLeague(ctx, c, s, item)),
  ];
}
