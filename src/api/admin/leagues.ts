import typia from 'typia';
import type { Ctx } from '../../context';
import { idsParam, uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { reply, Route } from '../../http/server';
import { batchRoute, getRow, listRows, scopeOf } from './resource';
import { issueFor, page } from './batch';
import { createLeague, leagueOfRow, leagues, updateLeague } from './writes/leagues';
import { runAt, runParams } from '../../domain/leagues';
import type { Tenant } from '../../store/tenants';
import { deleteLeagues, type LeagueRow } from '../../store/leagues';
import { configTx } from '../../store/config-tx';
import { freeLeagueKeys, openCohorts } from '../../engine';
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
    {
      method: 'del',
      pattern: LEAGUES.path,
      handler: async (req) => {
        const s = await scopeOf(ctx, LEAGUES as never, req);
        const ids = idsParam(req.query);
        const deleted = await configTx(ctx, s.tenant, (c) => deleteLeagues(c, s.tenant.id, ids));
        // The new config is published: no event enters these leagues any more, so their keys go,
        // and with them the ids of users in their cohorts (an erasure only visits configured leagues).
        for (const d of deleted) await freeLeagueKeys(ctx.redis, ctx.keys.tenant(s.tenant.slot), d.slot);
        const gone = new Set(deleted.map((d) => d.id));
        return reply(200, { deleted: deleted.map((d) => ({ id: d.id })), issues: ids.filter((id) => !gone.has(id)).map((id) => issueFor(id, 'League not found')) });
      },
    },
    batchRoute(ctx, LEAGUES, 'post', typia.createValidate<CreateLeague>(), (c, s, item) => createLeague(ctx, c, s, item)),
    batchRoute(ctx, LEAGUES, 'patch', typia.createValidate<PatchLeague>(), (c, s, item) => updateLeague(ctx, c, s, item)),
  ];
}
