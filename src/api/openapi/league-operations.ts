import typia from 'typia';
import type { Batch, Created, Updated } from '../../wire/admin';
import type { AdminLeague, CreateLeague, LeagueCohort, LeagueHistoryEntry, LeagueHistoryQuery, PatchLeague, UserLeague } from '../../wire/leagues';
import { collection } from './admin-operations';
import type { Operation } from './document';

const app = 'application' as const;
const about = 'A Laurel extension (not in Trophy): see docs/leagues.md.';

/** Leagues: small cohort boards with tiers, promotion and relegation. */
export const leagueOperations: Operation[] = [
  ...collection({
    path: '/admin/v1/leagues', name: 'leagues', one: 'league', many: 'leagues', tag: 'Admin: leagues',
    item: typia.json.schema<AdminLeague>(), items: typia.json.schema<AdminLeague[]>(),
    create: typia.json.schema<Batch<CreateLeague>>(), created: typia.json.schema<Created<AdminLeague>>(),
    update: typia.json.schema<Batch<PatchLeague>>(), updated: typia.json.schema<Updated<AdminLeague>>(),
  }).map((op) => ({ ...op, description: op.method === 'patch' ? `${about} Tiers and cohort size apply from the next run on.` : about })),
  {
    method: 'get', path: '/v1/users/:id/leagues/:key', operationId: 'users_league', tag: 'Leagues', auth: app,
    summary: "A user's tier, cohort and zone in a league's current run", description: about,
    responses: { 200: { description: 'The standing', schema: typia.json.schema<UserLeague>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/leagues/:key/history', operationId: 'users_league_history', tag: 'Leagues', auth: app,
    summary: "A user's results of finished runs, newest first", description: about,
    query: typia.json.schema<LeagueHistoryQuery>(),
    responses: { 200: { description: 'The results', schema: typia.json.schema<LeagueHistoryEntry[]>() } },
  },
  {
    method: 'get', path: '/v1/leagues/:key/cohorts/:cohortId', operationId: 'leagues_cohort', tag: 'Leagues', auth: app,
    summary: "A cohort's rankings, of the current run or a finished one", description: about,
    responses: { 200: { description: 'The cohort', schema: typia.json.schema<LeagueCohort>() } },
  },
];
