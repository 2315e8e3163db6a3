import typia from 'typia';
import type { Ctx } from '../../context';
import { resourceRoutes, type Resource } from './resource';
import { batchIo } from './batch';
import { createLeague, leagueOfRow, leagues, updateLeague } from './writes/leagues';
import { runAt, runParams } from '../../domain/leagues';
import type { Tenant } from '../../store/tenants';
import { deleteLeagueHistory, type LeagueRow } from '../../store/leagues';
import { freeLeagueKeys, openCohorts } from '../../engine';
import type { Batch, Created, Updated } from '../../wire/admin';
import { LEAGUES_ABOUT as about, type AdminLeague, type CreateLeague, type PatchLeague } from '../../wire/leagues';


/**
 * Leagues (a Laurel extension, docs/leagues.md), in the bulk style of the
 * other config collections. Reads carry the current run's cohorts per tier,
 * counted in Redis.
 */
export function leagueAdminRoutes(ctx: Ctx) {
  const LEAGUES: Resource<LeagueRow, AdminLeague> = {
    ...leagues(() => ctx.clock.now()),
    afterDelete: {
      inTx: (c, s, rows) => deleteLeagueHistory(c, s.tenant.id, rows.map((r) => r.id)),
      // The new config is published: no event enters these leagues any more, so their keys go,
      // and with them the ids of users in their cohorts (an erasure only visits configured leagues).
      committed: async (s, rows) => {
        for (const r of rows) await freeLeagueKeys(ctx.redis, ctx.keys.tenant(s.tenant.slot), r.slot);
      },
    },
  };
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
  return resourceRoutes(ctx, LEAGUES, {
    name: 'leagues', one: 'league', many: 'leagues', tag: 'Admin: leagues',
    description: (op) => (op === 'update' ? `${about} Tiers and cohort size apply from the next run on.` : about),
    item: typia.json.schema<AdminLeague>(), items: typia.json.schema<AdminLeague[]>(),
    create: batchIo(typia.createValidate<CreateLeague>(), typia.json.schema<Batch<CreateLeague>>()), created: typia.json.schema<Created<AdminLeague>>(),
    update: batchIo(typia.createValidate<PatchLeague>(), typia.json.schema<Batch<PatchLeague>>()), updated: typia.json.schema<Updated<AdminLeague>>(),
    insert: (c, s, item) => createLeague(ctx, c, s, item),
    change: (c, s, item) => updateLeague(ctx, c, s, item),
    read: (s, rows) => withCohorts(s.tenant, rows),
  });
}
