import typia from 'typia';
import type { LeagueCohort, LeagueHistoryEntry, LeagueHistoryQuery, UserLeague } from '../../wire/leagues';
import type { Operation } from './document';

const app = 'application' as const;
const about = 'A Laurel extension (not in Trophy): see docs/leagues.md.';

/** Leagues: small cohort boards with tiers, promotion and relegation. */
export const leagueOperations: Operation[] = [
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
