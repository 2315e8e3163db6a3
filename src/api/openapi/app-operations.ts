import typia from 'typia';
import type {
  AchievementCompletion, AchievementWithStats, AttributesQuery, CompleteAchievementBody, EventBody, EventResponse, EventSummaryQuery,
  Health, IncludeFinishedQuery, LeaderboardQuery, LeaderboardRankings, LeaderboardSummary, LevelSummary, MetricProgress, PointsBoost,
  PointsLevel, PointsRange, PointsSystem, Readiness, StreakRanking, StreakRankingsQuery, StreakSummary, StreaksQuery, SummaryPoint, User, UserAchievement,
  UserAchievementsQuery, UserInput, UserLeaderboard, UserLeaderboardQuery, UserPoints, UserPointsQuery, UserStreak, UserStreakQuery,
  UserWithId, UpdateUserPreferencesRequest, UserPreferencesResponse, WrappedQuery, WrappedResponse,
} from '../../wire/app';
import type { Operation } from './document';
import type { LiveClientMessage, LiveServerMessage, LiveToken, LiveTokenBody } from '../../wire/live';

/** `GET /v1/live`'s query: the token, when no X-API-KEY is sent (browsers). */
interface LiveQuery {
  /** A token from `POST /v1/live/tokens` (short-lived, good only for this). */
  token?: string;
}

const app = 'application' as const;

const EVENT = {
  tag: 'Events',
  summary: "Send an event: add a value to a user's metric total",
  description:
    'Counts the value toward the metric and evaluates everything it feeds: achievements, the streak, points and leaderboards. ' +
    'The user is created on first sight, and any profile fields sent are saved.',
  auth: app,
  idempotencyKey: true,
  body: typia.json.schema<EventBody>(),
  responses: {
    201: { description: 'Counted', schema: typia.json.schema<EventResponse>() },
    202: { description: 'Already counted under this Idempotency-Key: nothing changed', schema: typia.json.schema<EventResponse>() },
  },
};

const summaryOf = typia.json.schema<SummaryPoint[]>();

/** The Application API (and the service routes beside it). */
export const appOperations: Operation[] = [
  { ...EVENT, method: 'post', path: '/v1/metrics/:key/event', operationId: 'metrics_event' },
  { ...EVENT, method: 'post', path: '/api/metrics/:key/event', operationId: 'metrics_event_api', summary: `${EVENT.summary} (the same, under /api)` },

  {
    method: 'post', path: '/v1/users', operationId: 'users_create', tag: 'Users', auth: app,
    summary: 'Create or update a user',
    body: typia.json.schema<UserWithId>(),
    responses: { 201: { description: 'The user as saved', schema: typia.json.schema<User>() } },
  },
  {
    method: 'get', path: '/v1/users/:id', operationId: 'users_get', tag: 'Users', auth: app,
    summary: 'Get a user',
    responses: { 200: { description: 'The user', schema: typia.json.schema<User>() } },
  },
  {
    method: 'put', path: '/v1/users/:id', operationId: 'users_identify', tag: 'Users', auth: app,
    summary: 'Create or update a user (identify)',
    body: typia.json.schema<UserInput>(),
    responses: { 200: { description: 'The user as saved', schema: typia.json.schema<User>() } },
  },
  {
    method: 'patch', path: '/v1/users/:id', operationId: 'users_update', tag: 'Users', auth: app,
    summary: 'Update an existing user',
    body: typia.json.schema<UserInput>(),
    responses: { 200: { description: 'The user as saved', schema: typia.json.schema<User>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/preferences', operationId: 'users_get_preferences', tag: 'Users', auth: app,
    summary: "A user's notification (and own streak) preferences",
    description: 'Every notification type is present: the user\'s own channels, else the tenant\'s default (Admin API: /admin/v1/retention).',
    responses: { 200: { description: 'The preferences', schema: typia.json.schema<UserPreferencesResponse>() } },
  },
  {
    method: 'patch', path: '/v1/users/:id/preferences', operationId: 'users_update_preferences', tag: 'Users', auth: app,
    summary: "Update a user's notification and streak preferences",
    description: 'Types omitted keep their channels; [] opts out. `streak` needs streak customization (403 otherwise). An invalid body is 422.',
    body: typia.json.schema<UpdateUserPreferencesRequest>(),
    responses: { 200: { description: 'The preferences after the update', schema: typia.json.schema<UserPreferencesResponse>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/wrapped', operationId: 'users_wrapped', tag: 'Users', auth: app,
    summary: "A user's year in review",
    description: 'Computed from the durable store (after writing any of the user\'s records still unflushed). ' +
      'Percentiles come from a table the scheduler refreshes hourly (final once a period has ended everywhere). A year after the current one is 422.',
    query: typia.json.schema<WrappedQuery>(),
    responses: { 200: { description: 'The year in review', schema: typia.json.schema<WrappedResponse>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/metrics', operationId: 'users_all_metrics', tag: 'Users', auth: app,
    summary: "A user's total of every metric, with its achievements",
    responses: { 200: { description: 'Every metric', schema: typia.json.schema<MetricProgress[]>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/metrics/:key', operationId: 'users_single_metric', tag: 'Users', auth: app,
    summary: "A user's total of one metric, with its achievements",
    responses: { 200: { description: 'The metric', schema: typia.json.schema<MetricProgress>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/metrics/:key/event-summary', operationId: 'users_metric_event_summary', tag: 'Users', auth: app,
    summary: "A user's metric per day, week or month",
    description: 'Read from the durable store, so it may trail the live total by the flusher lag.',
    query: typia.json.schema<EventSummaryQuery>(),
    responses: { 200: { description: 'One entry per period', schema: summaryOf } },
  },
  {
    method: 'get', path: '/v1/users/:id/achievements', operationId: 'users_achievements', tag: 'Users', auth: app,
    summary: "A user's achievements, with progress",
    query: typia.json.schema<UserAchievementsQuery>(),
    responses: { 200: { description: 'Completed (and, if asked, incomplete) achievements', schema: typia.json.schema<UserAchievement[]>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/streak', operationId: 'users_streak', tag: 'Users', auth: app,
    summary: "A user's streak, with its recent history and pauses",
    query: typia.json.schema<UserStreakQuery>(),
    responses: { 200: { description: 'The streak', schema: typia.json.schema<UserStreak>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/points/:key', operationId: 'users_points', tag: 'Users', auth: app,
    summary: "A user's points in one system: total, level and recent awards",
    query: typia.json.schema<UserPointsQuery>(),
    responses: { 200: { description: 'The points', schema: typia.json.schema<UserPoints>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/points/:key/event-summary', operationId: 'users_points_event_summary', tag: 'Users', auth: app,
    summary: "A user's points per day, week or month",
    query: typia.json.schema<EventSummaryQuery>(),
    responses: { 200: { description: 'One entry per period', schema: summaryOf } },
  },
  {
    method: 'get', path: '/v1/users/:id/points/:key/boosts', operationId: 'users_points_boosts', tag: 'Users', auth: app,
    summary: 'Boosts active for a user today',
    responses: { 200: { description: 'The boosts', schema: typia.json.schema<PointsBoost[]>() } },
  },
  {
    method: 'get', path: '/v1/users/:id/leaderboards/:key', operationId: 'users_leaderboard', tag: 'Users', auth: app,
    summary: "A user's rank on a leaderboard, with its recent changes",
    query: typia.json.schema<UserLeaderboardQuery>(),
    responses: { 200: { description: 'The standing', schema: typia.json.schema<UserLeaderboard>() } },
  },

  {
    method: 'get', path: '/v1/streaks', operationId: 'streaks_list', tag: 'Streaks', auth: app,
    summary: 'The streak length of several users',
    query: typia.json.schema<StreaksQuery>(),
    responses: { 200: { description: 'One entry per user asked for', schema: typia.json.schema<StreakSummary[]>() } },
  },
  {
    method: 'get', path: '/v1/streaks/rankings', operationId: 'streaks_rankings', tag: 'Streaks', auth: app,
    summary: 'The top users by current or longest streak',
    query: typia.json.schema<StreakRankingsQuery>(),
    responses: { 200: { description: 'Longest first', schema: typia.json.schema<StreakRanking[]>() } },
  },

  {
    method: 'get', path: '/v1/points/:key', operationId: 'points_system', tag: 'Points', auth: app,
    summary: 'A points system and its active triggers',
    responses: { 200: { description: 'The system', schema: typia.json.schema<PointsSystem>() } },
  },
  {
    method: 'get', path: '/v1/points/:key/levels', operationId: 'points_levels', tag: 'Points', auth: app,
    summary: "A points system's levels, lowest first",
    responses: { 200: { description: 'The levels', schema: typia.json.schema<PointsLevel[]>() } },
  },
  {
    method: 'get', path: '/v1/points/:key/boosts', operationId: 'points_boosts', tag: 'Points', auth: app,
    summary: "A points system's boosts for everyone (not the per-user ones)",
    query: typia.json.schema<IncludeFinishedQuery>(),
    responses: { 200: { description: 'The boosts', schema: typia.json.schema<PointsBoost[]>() } },
  },
  {
    method: 'get', path: '/v1/points/:key/summary', operationId: 'points_summary', tag: 'Points', auth: app,
    summary: 'How many users hold how many points',
    description: 'Negative totals together, zero on its own, then ten ranges of equal, round width. Trails live totals by the flusher lag.',
    query: typia.json.schema<AttributesQuery>(),
    responses: { 200: { description: 'Users per range', schema: typia.json.schema<PointsRange[]>() } },
  },
  {
    method: 'get', path: '/v1/points/:key/level-summary', operationId: 'points_level_summary', tag: 'Points', auth: app,
    summary: 'How many users are at each level',
    responses: { 200: { description: 'Users per level', schema: typia.json.schema<LevelSummary[]>() } },
  },

  {
    method: 'get', path: '/v1/achievements', operationId: 'achievements_all', tag: 'Achievements', auth: app,
    summary: 'Every active achievement, with how many users completed it',
    query: typia.json.schema<AttributesQuery>(),
    responses: { 200: { description: 'The achievements', schema: typia.json.schema<AchievementWithStats[]>() } },
  },
  {
    method: 'post', path: '/v1/achievements/:key/complete', operationId: 'achievements_complete', tag: 'Achievements', auth: app,
    summary: 'Complete an achievement that has the `api` trigger',
    body: typia.json.schema<CompleteAchievementBody>(),
    responses: {
      201: { description: 'Completed now', schema: typia.json.schema<AchievementCompletion>() },
      200: { description: 'The user had already completed it: nothing changed', schema: typia.json.schema<AchievementCompletion>() },
    },
  },

  {
    method: 'get', path: '/v1/leaderboards', operationId: 'leaderboards_all', tag: 'Leaderboards', auth: app,
    summary: 'Active and scheduled leaderboards',
    query: typia.json.schema<IncludeFinishedQuery>(),
    responses: { 200: { description: 'The leaderboards', schema: typia.json.schema<LeaderboardSummary[]>() } },
  },
  {
    method: 'get', path: '/v1/leaderboards/:key', operationId: 'leaderboards_get', tag: 'Leaderboards', auth: app,
    summary: "A leaderboard's rankings",
    query: typia.json.schema<LeaderboardQuery>(),
    responses: { 200: { description: 'The leaderboard and a page of rankings', schema: typia.json.schema<LeaderboardRankings>() } },
  },

  {
    method: 'post', path: '/v1/live/tokens', operationId: 'live_token', tag: 'Live', auth: app,
    summary: 'A short-lived token to open the live WebSocket with (for browsers)',
    description:
      "Carries the key's scope: an admin key's whole tenant, an application key's own user. An admin key may send " +
      '`{"userId": …}` for a token scoped to that user (its own updates, and leaderboards). Expires after LIVE_TOKEN_TTL_SECONDS (default 300). ' +
      'The body is optional.',
    body: typia.json.schema<LiveTokenBody>(),
    responses: { 201: { description: 'The token', schema: typia.json.schema<LiveToken>() } },
  },
  {
    method: 'get', path: '/v1/live', operationId: 'live', tag: 'Live', auth: app,
    summary: 'Live updates of users and leaderboards (WebSocket)',
    description:
      'An HTTP/1.1 WebSocket upgrade, authenticated with `X-API-KEY` (and `Tenant-ID`) or `?token=`; a refusal is an ordinary ' +
      'HTTP answer with `{"error": …}` (401, 403, 429 over LIVE_MAX_CONNECTIONS_PER_KEY, 503 while restarting); a plain GET is 426. ' +
      'Then each message is one JSON object: the client sends `{"subscribe": "user:<id>"}`, ' +
      '`{"subscribe": "leaderboard:<key>", "top": N, "around": {"userId": …, "n": N}}` or `{"unsubscribe": …}`; the server answers ' +
      '`{"subscribed": …, "seq": 0}` or `{"error": …, "subscribe": …}` and sends updates with `subscription` and `seq` (one more per update ' +
      'of that subscription: a gap means updates were dropped, resync with one REST read). Application keys subscribe to their own user ' +
      'only (and to boards, as they read them over REST). Close codes: 1012 the server is restarting (reconnect), 4008 too slow ' +
      '(more than LIVE_MAX_BUFFER_BYTES unread for LIVE_MAX_DROPPED messages in a row). The messages are described by `x-laurel-live`.',
    query: typia.json.schema<LiveQuery>(),
    responses: { 101: { description: 'Switching Protocols: the WebSocket is open' } },
    messages: {
      description: 'JSON text messages on the WebSocket: `client` what a client sends, `server` what it receives.',
      client: typia.json.schema<LiveClientMessage>(),
      server: typia.json.schema<LiveServerMessage>(),
    },
  },

  {
    method: 'get', path: '/healthz', operationId: 'health', tag: 'Service', auth: 'none',
    summary: 'Liveness: the process answers',
    responses: { 200: { description: 'Alive', schema: typia.json.schema<Health>() } },
  },
  {
    method: 'get', path: '/readyz', operationId: 'readiness', tag: 'Service', auth: 'none',
    summary: 'Readiness: Redis and Postgres answer; with the flusher lag and dead letters',
    responses: {
      200: { description: 'Ready', schema: typia.json.schema<Readiness>() },
      503: { description: 'Not ready (see which store is down)', schema: typia.json.schema<Readiness>() },
    },
  },
  {
    method: 'get', path: '/metrics', operationId: 'prometheus_metrics', tag: 'Service', auth: 'none',
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Open unless METRICS_TOKEN is set; then send `Authorization: Bearer <token>`.',
    responses: { 200: { description: 'Every metric, summed over all worker processes' } },
  },
  {
    method: 'get', path: '/openapi.json', operationId: 'openapi', tag: 'Service', auth: 'none',
    summary: 'This description of both APIs (OpenAPI 3.1)',
    responses: { 200: { description: 'The OpenAPI document' } },
  },
];
