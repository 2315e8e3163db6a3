import typia from 'typia';
import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { notFound } from '../../errors';
import { reply, Route } from '../../http/server';
import { batchRoute, getRow, readDeleteRoutes, scopeOf } from './resource';
import { page } from './batch';
import { createLeague, LEAGUE_COLS, LeagueRow, leagueOfRow, leagues, updateLeague } from './writes/leagues';
import { runAt, runParams } from '../../domain/leagues';
import type { Tenant } from '../../store/tenants';
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
    if (!rows.length) return rows;
    const tk = ctx.keys.tenant(t.slot);
    const pipe = ctx.redis.pipeline();
    for (const r of rows) {
      const l = leagueOfRow(r);
      const run = runAt(l, ctx.clock.now());
      pipe.hmget(tk.leagueRun(r.slot, run), ...runParams(l, run).tiers.map((_, i) => `n${i}`));
    }
    const res = (await pipe.exec()) ?? [];
    return rows.map((r, i) => ({ ...r, cohorts: ((res[i]?.[1] as (string | null)[] | undefined) ?? []).map((n) => Number(n ?? 0)) }));
  };
  return [
    {
      method: 'get',
      pattern: LEAGUES.path,
      handler: async (req) => {
        const s = await scopeOf(ctx, LEAGUES as never, req);
        const { limit, skip } = page(req.query);
        const { rows } = await ctx.db.query<LeagueRow>(`SELECT ${LEAGUE_COLS} FROM leagues WHERE tenant_id = $1 ORDER BY slot LIMIT $2 OFFSET $3`, [s.tenant.id, limit, skip]);
        return reply(200, (await withCohorts(s.tenant, rows)).map(LEAGUES.json));
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
