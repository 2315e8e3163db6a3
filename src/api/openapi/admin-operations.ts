import typia from 'typia';
import type {
  Batch, Created, ApplicationKey,
  AdminStreakPause, CreateKey, Deleted,
  FreezesBody, FreezesResponse, IdsQuery, ListQuery,
  PausesBody, RestoreBody, UpdatedKey, UpdateKey, RestoreResponse, StreakSettings, StreakSettingsResponse, Updated,
  ErasedUser, UserExport,
  DeadLetter, DeadLetterReplayed, BatchEventsBody, BatchEventsResponse, BatchRejection,
  AdminUserEvent, UserEventsQuery, EventsAnalyticsQuery, EventsPerDay, PointsAnalyticsQuery, PointsPerDay, AnalyticsRange, ActiveUsersPerDay,
  StreakDistribution, AchievementCompletionRate, ExperimentQuery, ExperimentAnalytics, LeaderboardRunStats,
  RetentionSettings, RetentionSettingsResponse,
  AdminApiKey, AdminApiKeyWithSecret, CreateAdminKey, PatchAdminKey, AuditPage, AuditQuery,
  ConfigDocument, ConfigHistoryEntry, ConfigPlan, ConfigQuery, ConfigRevert,
} from '../../wire/admin';
import type { Operation, Unit } from './document';

const admin = 'admin' as const;
const list = typia.json.schema<ListQuery>();
const ids = typia.json.schema<IdsQuery>();
const deleted = typia.json.schema<Deleted>();

/** `GET /admin/v1/analytics/{name}` over a range of UTC days (see src/api/admin/analytics.ts). */
function analytics(name: string, summary: string, query: Unit, schema: Unit): Operation[] {
  return [{
    method: 'get', path: `/admin/v1/analytics/${name}`, operationId: `admin_analytics_${name.replace('-', '_')}`, tag: 'Admin: analytics',
    auth: admin, summary, query,
    description: 'Read from Postgres once it holds every acknowledged change. `from` and `to` are UTC days, both included, at most 400 days apart; otherwise 422.',
    responses: { 200: { description: summary, schema } },
  }];
}

/** The Admin API. */
export const adminOperations: Operation[] = [
  {
    method: 'post', path: '/admin/v1/metrics/events', operationId: 'admin_metrics_batch_events', tag: 'Admin: metrics', auth: admin,
    summary: 'Submit up to 1,000 events for processing in the background',
    description:
      'Each item is checked as a single event would be; any invalid item refuses the whole batch and nothing is queued. ' +
      'Accepted items are applied in order by the background process, each with the consequences a single event has; ' +
      'items refused then (a metric deleted meanwhile, points blocked) are listed under /admin/v1/metrics/events/rejected.',
    body: typia.json.schema<BatchEventsBody>(),
    responses: { 202: { description: 'Queued', schema: typia.json.schema<BatchEventsResponse>() } },
  },
  {
    method: 'get', path: '/admin/v1/metrics/events/rejected', operationId: 'admin_metrics_batch_rejections_list', tag: 'Admin: metrics', auth: admin,
    summary: 'List accepted batch items that could not be applied',
    query: list,
    responses: { 200: { description: 'A page, newest first, each with the status and error the single endpoint would have answered', schema: typia.json.schema<BatchRejection[]>() } },
  },
  {
    method: 'get', path: '/admin/v1/metrics/events/rejected/:id', operationId: 'admin_metrics_batch_rejections_get', tag: 'Admin: metrics', auth: admin,
    summary: 'Get a rejected batch item',
    responses: { 200: { description: 'The item, its status and error', schema: typia.json.schema<BatchRejection>() } },
  },
  {
    method: 'del', path: '/admin/v1/metrics/events/rejected', operationId: 'admin_metrics_batch_rejections_delete', tag: 'Admin: metrics', auth: admin,
    summary: 'Discard rejected batch items (by id)',
    query: ids,
    responses: { 200: { description: 'What was discarded, and ids not found', schema: deleted } },
  },

  {
    method: 'get', path: '/admin/v1/dead-letters', operationId: 'admin_dead_letters_list', tag: 'Admin: dead letters', auth: admin,
    summary: 'List change records Postgres refused',
    description:
      'Records the flusher could not write for good (a data error, not an outage) and set aside so the rest of their batch was written. ' +
      'While any exist, /readyz reports the flusher as degraded.',
    query: list,
    responses: { 200: { description: 'A page of dead letters, newest first', schema: typia.json.schema<DeadLetter[]>() } },
  },
  {
    method: 'get', path: '/admin/v1/dead-letters/:id', operationId: 'admin_dead_letters_get', tag: 'Admin: dead letters', auth: admin,
    summary: 'Get a dead letter',
    responses: { 200: { description: 'The dead letter, with its record and error', schema: typia.json.schema<DeadLetter>() } },
  },
  {
    method: 'post', path: '/admin/v1/dead-letters/:id/replay', operationId: 'admin_dead_letters_replay', tag: 'Admin: dead letters', auth: admin,
    summary: 'Write a dead letter to Postgres again',
    description: 'After fixing the cause. On success the dead letter is removed; if Postgres still refuses it, 422 with the error (kept on the dead letter).',
    responses: { 200: { description: 'Written; the dead letter is gone', schema: typia.json.schema<DeadLetterReplayed>() } },
  },
  {
    method: 'del', path: '/admin/v1/dead-letters', operationId: 'admin_dead_letters_delete', tag: 'Admin: dead letters', auth: admin,
    summary: 'Discard dead letters (by id)',
    description: 'Their records are never written.',
    query: ids,
    responses: { 200: { description: 'What was discarded, and ids not found', schema: deleted } },
  },

  {
    method: 'get', path: '/admin/v1/streak', operationId: 'admin_streak_get', tag: 'Admin: streaks', auth: admin,
    summary: 'Streak settings',
    responses: { 200: { description: 'The settings (defaults until set)', schema: typia.json.schema<StreakSettingsResponse>() } },
  },
  {
    method: 'put', path: '/admin/v1/streak', operationId: 'admin_streak_set', tag: 'Admin: streaks', auth: admin,
    summary: 'Replace the streak settings',
    body: typia.json.schema<StreakSettings>(),
    responses: { 200: { description: 'The settings as saved', schema: typia.json.schema<StreakSettingsResponse>() } },
  },
  {
    method: 'get', path: '/admin/v1/retention', operationId: 'admin_retention_get', tag: 'Admin: retention', auth: admin,
    summary: 'Retention settings: control ratio, notification defaults, email-due webhooks',
    responses: { 200: { description: 'The settings (defaults until set)', schema: typia.json.schema<RetentionSettingsResponse>() } },
  },
  {
    method: 'put', path: '/admin/v1/retention', operationId: 'admin_retention_set', tag: 'Admin: retention', auth: admin,
    summary: 'Replace the retention settings (omitted fields take their defaults)',
    body: typia.json.schema<RetentionSettings>(),
    responses: { 200: { description: 'The settings as saved', schema: typia.json.schema<RetentionSettingsResponse>() } },
  },
  {
    method: 'post', path: '/admin/v1/streaks/freezes', operationId: 'admin_streaks_freezes_create', tag: 'Admin: streaks', auth: admin,
    summary: 'Give users a streak freeze each',
    body: typia.json.schema<FreezesBody>(),
    responses: {
      201: { description: 'Some were granted; issues name the rest', schema: typia.json.schema<FreezesResponse>() },
      200: { description: 'None were granted', schema: typia.json.schema<FreezesResponse>() },
    },
  },
  {
    method: 'post', path: '/admin/v1/streaks/pauses', operationId: 'admin_streaks_pauses_create', tag: 'Admin: streaks', auth: admin,
    summary: "Pause users' streaks over date ranges",
    body: typia.json.schema<PausesBody>(),
    responses: { 201: { description: 'The pauses created, and issues for the rest', schema: typia.json.schema<Created<AdminStreakPause>>() } },
  },
  {
    method: 'del', path: '/admin/v1/streaks/pauses', operationId: 'admin_streaks_pauses_delete', tag: 'Admin: streaks', auth: admin,
    summary: 'Delete streak pauses (by id)',
    query: ids,
    responses: { 200: { description: 'What was deleted, and ids not found', schema: deleted } },
  },
  {
    method: 'post', path: '/admin/v1/streaks/restore', operationId: 'admin_streaks_restore', tag: 'Admin: streaks', auth: admin,
    summary: 'Give users back the streak they last lost',
    body: typia.json.schema<RestoreBody>(),
    responses: {
      201: { description: 'Some were restored; issues name the rest', schema: typia.json.schema<RestoreResponse>() },
      200: { description: 'None were restored', schema: typia.json.schema<RestoreResponse>() },
    },
  },

  {
    method: 'get', path: '/admin/v1/users/:id/events', operationId: 'admin_user_events_list', tag: 'Admin: users', auth: admin,
    summary: "A user's latest events, newest first",
    description: 'Read from Postgres once it holds every acknowledged event.',
    query: typia.json.schema<UserEventsQuery>(),
    responses: { 200: { description: 'The events (none for an unknown user)', schema: typia.json.schema<AdminUserEvent[]>() } },
  },
  ...analytics('events', 'Events per UTC day and metric', typia.json.schema<EventsAnalyticsQuery>(), typia.json.schema<EventsPerDay[]>()),
  ...analytics('points', 'Points issued and consumed per UTC day and system', typia.json.schema<PointsAnalyticsQuery>(), typia.json.schema<PointsPerDay[]>()),
  ...analytics('active-users', 'Users with an event, per UTC day', typia.json.schema<AnalyticsRange>(), typia.json.schema<ActiveUsersPerDay[]>()),
  ...analytics('streaks', 'Users by the length of their streak alive at the end of the range', typia.json.schema<AnalyticsRange>(), typia.json.schema<StreakDistribution>()),
  ...analytics('achievements', 'Completions and completion rate of each achievement', typia.json.schema<AnalyticsRange>(), typia.json.schema<AchievementCompletionRate[]>()),
  {
    method: 'get', path: '/admin/v1/analytics/experiment', operationId: 'admin_analytics_experiment', tag: 'Admin: analytics', auth: admin,
    summary: 'Retention and engagement of the experiment group against the control group',
    description: 'For the users whose first active local date is between `from` and `to` (both included, at most 400 days apart): '
      + 'd1/d7/d30 retention, active days and events per active day by group, the lift with its 95% interval and p-value, weekly cohorts, '
      + 'and with `attribute` the split by that user attribute. See docs/analytics.md. 422 for a bad range or an unknown attribute.',
    query: typia.json.schema<ExperimentQuery>(),
    responses: { 200: { description: 'The figures', schema: typia.json.schema<ExperimentAnalytics>() } },
  },
  {
    method: 'get', path: '/admin/v1/analytics/leaderboards/:key', operationId: 'admin_analytics_leaderboard_runs', tag: 'Admin: analytics', auth: admin,
    summary: "Statistics of a leaderboard's runs",
    description: 'One entry per run starting between `from` and `to` (both included, at most 400 days apart): its dates, participants, top and median score. '
      + '404 for an unknown board; 422 for a bad range.',
    query: typia.json.schema<AnalyticsRange>(),
    responses: { 200: { description: 'The runs, oldest first', schema: typia.json.schema<LeaderboardRunStats[]>() } },
  },
  {
    method: 'post', path: '/admin/v1/application-api-keys', operationId: 'admin_application_api_keys_create', tag: 'Admin: keys', auth: admin,
    summary: 'Create application keys, each limited to one user',
    description: 'The secret is in the response only: it is stored hashed.',
    body: typia.json.schema<Batch<CreateKey>>(),
    responses: {
      201: { description: 'The keys', schema: typia.json.schema<Created<ApplicationKey>>() },
      200: { description: 'None were created: every item is an issue', schema: typia.json.schema<Created<ApplicationKey>>() },
    },
  },
  {
    method: 'patch', path: '/admin/v1/application-api-keys', operationId: 'admin_application_api_keys_update', tag: 'Admin: keys', auth: admin,
    summary: "Set application keys' rate limits (by id)",
    description: 'A new limit applies at once, in every process.',
    body: typia.json.schema<Batch<UpdateKey>>(),
    responses: { 200: { description: 'What was updated, and ids not found', schema: typia.json.schema<Updated<UpdatedKey>>() } },
  },
  {
    method: 'del', path: '/admin/v1/application-api-keys', operationId: 'admin_application_api_keys_delete', tag: 'Admin: keys', auth: admin,
    summary: 'Revoke application keys (by id)',
    query: ids,
    responses: { 200: { description: 'What was revoked, and ids not found', schema: deleted } },
  },

  {
    method: 'del', path: '/admin/v1/users/:id', operationId: 'admin_users_erase', tag: 'Admin: users', auth: admin,
    summary: 'Erase a user and everything held about them',
    description:
      'Removes the user from Redis and Postgres: profile, totals, points and awards, achievements (rarity no longer counts them), ' +
      'streak and its history, pauses, leaderboard places (the others move up) and history, events, idempotency keys, ' +
      'boosts and application keys bound to them, webhook deliveries and messages about them (device tokens go with the profile). Only a tombstone stays: a SHA-256 of ' +
      'tenant and user id, and the time. Erasing again answers the same; an event for the id afterwards starts a new user. ' +
      '404 for an id never seen nor erased; 422 for an id that is empty, longer than 255 characters or holds control characters.',
    responses: { 200: { description: 'Erased (now or before)', schema: typia.json.schema<ErasedUser>() } },
  },
  {
    method: 'get', path: '/admin/v1/users/:id/export', operationId: 'admin_users_export', tag: 'Admin: users', auth: admin,
    summary: 'Everything held about a user, as one document',
    description: 'Profile, metric and points totals, awards, achievements, streak and its history, leaderboard places and history, events, ' +
      'boosts, application keys (never secrets), webhook deliveries and messages about the user. 404 for an unknown user.',
    responses: { 200: { description: 'The document', schema: typia.json.schema<UserExport>() } },
  },
  {
    method: 'get', path: '/admin/v1/admin-api-keys', operationId: 'admin_admin_api_keys_list', tag: 'Admin: admin keys', auth: admin, tenant: false,
    summary: 'List admin keys',
    description: 'Every admin key of the instance, oldest first: made through the API, printed at the first start (`bootstrap`), or ADMIN_API_KEY (`environment`, managed by that variable). Never a secret.',
    responses: { 200: { description: 'The keys', schema: typia.json.schema<AdminApiKey[]>() } },
  },
  {
    method: 'get', path: '/admin/v1/admin-api-keys/:id', operationId: 'admin_admin_api_keys_get', tag: 'Admin: admin keys', auth: admin, tenant: false,
    summary: 'Get an admin key',
    responses: { 200: { description: 'The key', schema: typia.json.schema<AdminApiKey>() } },
  },
  {
    method: 'post', path: '/admin/v1/admin-api-keys', operationId: 'admin_admin_api_keys_create', tag: 'Admin: admin keys', auth: admin, tenant: false,
    summary: 'Create an admin key',
    description: 'The key is in this response only: it is stored hashed. 422 when the instance already holds 10 admin keys.',
    body: typia.json.schema<CreateAdminKey>(),
    responses: { 201: { description: 'The new key', schema: typia.json.schema<AdminApiKeyWithSecret>() } },
  },
  {
    method: 'post', path: '/admin/v1/admin-api-keys/:id/rotate', operationId: 'admin_admin_api_keys_rotate', tag: 'Admin: admin keys', auth: admin, tenant: false,
    summary: 'Replace an admin key with a new one',
    description: 'Prefix and body are both new; the old key is refused (401) by every process within a second. 409 for the key the request is made with, or for ADMIN_API_KEY.',
    responses: { 200: { description: 'The new key, in this response only', schema: typia.json.schema<AdminApiKeyWithSecret>() } },
  },
  {
    method: 'patch', path: '/admin/v1/admin-api-keys/:id', operationId: 'admin_admin_api_keys_update', tag: 'Admin: admin keys', auth: admin, tenant: false,
    summary: 'Revoke or re-activate an admin key',
    description: 'The key itself does not change. 409 for the key the request is made with, for ADMIN_API_KEY, and for revoking the last active stored key.',
    body: typia.json.schema<PatchAdminKey>(),
    responses: { 200: { description: 'The key', schema: typia.json.schema<AdminApiKey>() } },
  },
  {
    method: 'del', path: '/admin/v1/admin-api-keys/:id', operationId: 'admin_admin_api_keys_delete', tag: 'Admin: admin keys', auth: admin, tenant: false,
    summary: 'Delete an admin key for good',
    description: '409 for the key the request is made with, for ADMIN_API_KEY, and for the last active stored key.',
    responses: { 200: { description: 'What was deleted', schema: deleted } },
  },
  {
    method: 'get', path: '/admin/v1/audit-log', operationId: 'admin_audit_log_list', tag: 'Admin: audit log', auth: admin, tenant: false,
    summary: 'Changes made through the Admin API, newest first',
    description: 'One entry per successful write: time, acting key (id and prefix), tenant, route, resource, action, and for updates the changed fields before and after (secrets masked). Filters combine; pass `nextCursor` as `cursor` for older entries.',
    query: typia.json.schema<AuditQuery>(),
    responses: { 200: { description: 'A page of entries', schema: typia.json.schema<AuditPage>() } },
  },
  {
    method: 'get', path: '/admin/v1/config', operationId: 'admin_config_get', tag: 'Admin: environments', auth: admin,
    summary: "The tenant's whole configuration as one document",
    description: 'Metrics, attributes, achievements, points systems (levels, triggers, boosts not aimed at one user), streak settings, ' +
      'leaderboards, retention settings, webhooks, message channels (email, apns, fcm, expo: without their credentials, which a push ' +
      "never changes) and the tenant's own templates, with no ids (references by key: metricKey, pointsSystemKey, prerequisiteKeys…) " +
      'and no secrets, in a fixed order: two pulls of an unchanged tenant are byte-identical. See docs/environments.md.',
    responses: { 200: { description: 'The document, with the config version it was read at', schema: typia.json.schema<ConfigDocument>() } },
  },
  {
    method: 'post', path: '/admin/v1/config/plan', operationId: 'admin_config_plan', tag: 'Admin: environments', auth: admin,
    summary: 'What applying a document would change, applying nothing',
    description: 'Creations, updates with each changed field (before and after) and deletions (only with prune=true: otherwise what the ' +
      'document lacks stays). 422 with the path of every problem: invalid fields, dangling references, changes the Admin API refuses.',
    query: typia.json.schema<ConfigQuery>(),
    body: typia.json.schema<ConfigDocument>(),
    responses: { 200: { description: 'The plan (version: the one planned against)', schema: typia.json.schema<ConfigPlan>() } },
  },
  {
    method: 'put', path: '/admin/v1/config', operationId: 'admin_config_apply', tag: 'Admin: environments', auth: admin,
    summary: 'Apply a document as one new config version',
    description: 'All or nothing: events see the configuration before or after, never a mix. `If-Match: <version>` answers 412 when ' +
      'the tenant changed since; 422 names the path of every problem; either way nothing is applied. A document that changes nothing ' +
      'makes no version. A webhook keeps its secret; a created one gets a new secret (rotate it to read it).',
    query: typia.json.schema<ConfigQuery>(),
    body: typia.json.schema<ConfigDocument>(),
    responses: { 200: { description: 'The plan applied (version: the new one)', schema: typia.json.schema<ConfigPlan>() } },
  },
  {
    method: 'get', path: '/admin/v1/config/history', operationId: 'admin_config_history', tag: 'Admin: environments', auth: admin,
    summary: 'The config versions made by applying documents, newest first',
    responses: { 200: { description: 'The versions', schema: typia.json.schema<ConfigHistoryEntry[]>() } },
  },
  {
    method: 'post', path: '/admin/v1/config/revert', operationId: 'admin_config_revert', tag: 'Admin: environments', auth: admin,
    summary: "Apply an earlier version's document again (pruning what it lacks) as a new version",
    body: typia.json.schema<ConfigRevert>(),
    responses: { 200: { description: 'The plan applied', schema: typia.json.schema<ConfigPlan>() } },
  },
];
