import type { tags } from 'typia';
import type { WebhookEventType } from '../webhooks/events';
import type { EventBody, IsoDate, IsoDateTime, NotificationPreferences, PointsBoost, PointsLevel, User } from './app';

// The Admin API on the wire (see ./app.ts for why these live apart).
// Writes take a batch of items; each item is validated on its own and the
// ones that fail come back as issues while the rest are applied.

type Int = number & tags.Type<'int32'>;
type Uuid = string & tags.Format<'uuid'>;
type Name = string & tags.MinLength<1> & tags.MaxLength<255>;
type UserId = string & tags.MinLength<1> & tags.MaxLength<255>;
/** Letters, digits, `_` and `-`, at most 100 (checked per item, reported as an issue). */
type Key = string;

// The limit is MAX_BATCH in src/api/admin/batch.ts.
/** One to 100 items. */
export type Batch<T> = T[] & tags.MinItems<1> & tags.MaxItems<100>;

// ---- shared ----

export interface AttributeFilter {
  attributeId: Uuid;
  attributeValue: string & tags.MaxLength<255>;
}

export type Badge = { url: string & tags.MaxLength<2048> } | null;

/** A per-item problem in a batch request. */
export interface AdminIssue {
  /** The item's id (updates and deletes). */
  id?: string;
  userId?: string;
  /** The item's position in the request (creates). */
  index?: number;
  severity: 'error' | 'warning';
  message: string;
}

export interface Created<T> {
  created: T[];
  issues: AdminIssue[];
}

export interface Updated<T> {
  updated: T[];
  issues: AdminIssue[];
}

export interface Deleted {
  deleted: { id: string }[];
  issues: AdminIssue[];
}

export interface ListQuery {
  /** At most this many (default 10). */
  limit?: Int & tags.Minimum<1> & tags.Maximum<100>;
  /** Skip this many (default 0). */
  skip?: Int & tags.Minimum<0> & tags.Maximum<1000000000>;
}

export interface IdsQuery {
  /** Ids to delete, repeated or comma-separated; at most 100. */
  ids: Uuid[];
}

// ---- metrics ----

export type UnitType = 'number' | 'currency';

export interface CreateMetric {
  name: Name;
  key: Key;
  unitType?: UnitType;
  /** A label for numbers; an ISO 4217 code (such as USD) for currency. */
  units?: string & tags.MaxLength<50>;
}

export interface UpdateMetric {
  id: Uuid;
  name?: Name;
  unitType?: UnitType;
  units?: string & tags.MaxLength<50>;
}

export interface AdminMetric {
  id: string;
  name: string;
  key: string;
  unitType: UnitType;
  units: string;
}

// ---- attributes ----

export interface CreateAttribute {
  name: Name;
  key: Key;
  type: 'user' | 'event';
}

export interface UpdateAttribute {
  id: Uuid;
  name?: Name;
}

export interface AdminAttribute {
  id: string;
  name: string;
  key: string;
  type: 'user' | 'event';
}

// ---- points ----

export type TriggerType = 'metric' | 'achievement' | 'streak' | 'time' | 'user_creation';
export type Rounding = 'down' | 'up' | 'nearest';

export interface TriggerFields {
  /** Points awarded (negative to deduct); not zero. */
  points: Int;
  status?: 'active' | 'inactive';
  userAttributes?: (AttributeFilter[] & tags.MaxItems<20>) | null;
  metricId?: Uuid;
  /** Award once per this much of the metric. */
  metricThreshold?: Int & tags.Minimum<1>;
  eventAttributes?: (AttributeFilter[] & tags.MaxItems<20>) | null;
  achievementId?: Uuid;
  streakLength?: Int & tags.Minimum<1>;
  timeUnit?: 'hours' | 'days';
  timeInterval?: Int & tags.Minimum<1>;
  /** Refuse the event (422) rather than take a total below zero. */
  blockIfOutOfPoints?: boolean;
}

export interface CreateTrigger extends TriggerFields {
  type: TriggerType;
}

export interface PatchTrigger extends Partial<TriggerFields> {
  id: Uuid;
  type?: TriggerType;
}

export interface CreateLevel {
  name: Name;
  key: Key;
  /** Total at which a user reaches the level. */
  points: Int & tags.Minimum<0>;
  description?: string & tags.MaxLength<1000>;
  badge?: Badge;
}

export interface PatchLevel {
  id: Uuid;
  name?: Name;
  points?: Int & tags.Minimum<0>;
  description?: string & tags.MaxLength<1000>;
  badge?: Badge;
}

export interface CreateBoost {
  /** Boost one user; or leave unset and filter by userAttributes (or neither: everyone). */
  userId?: UserId | null;
  name: Name;
  /** First day, YYYY-MM-DD. */
  start: string;
  /** Last day, YYYY-MM-DD (null: open-ended). */
  end?: string | null;
  /** Greater than 0, less than 100, not 1. */
  multiplier: number;
  rounding?: Rounding;
  userAttributes?: (AttributeFilter[] & tags.MaxItems<20>) | null;
}

export interface PatchBoost {
  id: Uuid;
  name?: Name;
  start?: string;
  end?: string | null;
  multiplier?: number;
  rounding?: Rounding;
  userAttributes?: (AttributeFilter[] & tags.MaxItems<20>) | null;
}

export interface SystemFields {
  name: Name;
  description?: string & tags.MaxLength<1000>;
  badge?: Badge;
  /** Totals never go above this. */
  maxPoints?: (Int & tags.Minimum<1>) | null;
}

export interface CreateSystem extends SystemFields {
  key: Key;
  /** Created with the system, all or nothing. */
  levels?: CreateLevel[] & tags.MaxItems<100>;
  boosts?: CreateBoost[] & tags.MaxItems<100>;
  triggers?: CreateTrigger[] & tags.MaxItems<100>;
}

export interface PatchSystem extends Partial<SystemFields> {
  id: Uuid;
}

export interface AdminPointsSystem {
  id: string;
  name: string;
  key: string;
  description: string;
  status: string;
  badge: Badge;
  maxPoints: Int | null;
}

export interface AdminPointsTrigger {
  id: string;
  type: TriggerType;
  points: Int;
  status: 'active' | 'inactive';
  userAttributes: AttributeFilter[];
  blockIfOutOfPoints: boolean;
  metricId?: string;
  metricThreshold?: Int;
  eventAttributes?: AttributeFilter[];
  achievementId?: string;
  streakLength?: Int;
  timeUnit?: 'hours' | 'days';
  timeInterval?: Int;
}

export interface AdminPointsLevel {
  id: string;
  name: string;
  key: string;
  points: Int;
  description: string;
  badge: Badge;
}

/** A boost as the application API shows it, plus who it is for. */
export interface AdminPointsBoost extends PointsBoost {
  userId: string | null;
  /** For boosts not tied to one user. */
  userAttributes?: AttributeFilter[];
}

export interface AdminPointsSystemWithItems extends AdminPointsSystem {
  levels?: AdminPointsLevel[];
  boosts?: AdminPointsBoost[];
  triggers?: AdminPointsTrigger[];
}

// ---- achievements ----

export type AchievementTrigger = 'metric' | 'streak' | 'api' | 'achievement';

export interface AchievementFields {
  name: Name;
  description?: (string & tags.MaxLength<1000>) | null;
  badge?: Badge;
  status?: 'active' | 'inactive';
  trigger: AchievementTrigger;
  metricId?: Uuid;
  /** The metric total that completes it. */
  metricValue?: number & tags.ExclusiveMinimum<0> & tags.Maximum<1e15>;
  streakLength?: Int & tags.Minimum<1>;
  /** For `achievement` triggers: the achievements that must all be completed. */
  prerequisiteIds?: Uuid[] & tags.MinItems<1> & tags.MaxItems<50>;
  userAttributes?: (AttributeFilter[] & tags.MaxItems<20>) | null;
  eventAttributes?: (AttributeFilter[] & tags.MaxItems<20>) | null;
}

export interface CreateAchievement extends AchievementFields {
  key: Key;
}

export interface PatchAchievement extends Partial<AchievementFields> {
  id: Uuid;
}

export interface AdminAchievement {
  id: string;
  key: string;
  name: string;
  description: string | null;
  badge: Badge;
  status: 'active' | 'inactive';
  trigger: AchievementTrigger;
  userAttributes: AttributeFilter[];
  metricId?: string;
  metricValue?: number;
  eventAttributes?: AttributeFilter[];
  streakLength?: Int;
  prerequisiteIds?: string[];
}

// ---- leaderboards ----

export type BoardStatus = 'inactive' | 'scheduled' | 'active' | 'finished';
export type RankBy = 'metric' | 'points' | 'streak';
export type RunUnit = 'day' | 'month' | 'year';
/**
 * HH:MM on each participant's own clock, not UTC: the user's `tz`, else the
 * tenant's default zone (retention settings' defaultTimeZone).
 */
type Time = string & tags.Pattern<'^([01][0-9]|2[0-3]):[0-5][0-9]$'>;

export interface BoardFields {
  name: Name;
  description?: (string & tags.MaxLength<1000>) | null;
  /** Asking for active (or scheduled) gives whichever the start date allows; finished ends it now (end becomes today, UTC, unless earlier). */
  status?: BoardStatus;
  rankBy: RankBy;
  metricId?: Uuid;
  pointsSystemId?: Uuid;
  maxParticipants?: (Int & tags.Minimum<1> & tags.Maximum<1000>) | null;
  /** First day, YYYY-MM-DD (default: today, UTC). */
  start?: string;
  /** Last day, YYYY-MM-DD (null: no end). */
  end?: string | null;
  /**
   * Daily time window: an event counts only from startTime (included) to
   * endTime (excluded), in the local time of the user it is for, so a window
   * of 09:00 to 17:00 opens at 09:00 in Tokyo and again at 09:00 in New York.
   * Either end may be left open.
   */
  startTime?: Time | null;
  endTime?: Time | null;
  /** User attribute ids: one board per combination of their values. */
  breakdownAttributes?: Uuid[] & tags.MaxItems<5>;
  runUnit?: RunUnit | null;
  runInterval?: (Int & tags.Minimum<1> & tags.Maximum<3650>) | null;
}

export interface CreateBoard extends BoardFields {
  key: Key;
}

export interface PatchBoard extends Partial<BoardFields> {
  id: Uuid;
  key?: Key;
}

export interface AdminLeaderboard {
  id: string;
  name: string;
  key: string;
  description?: string;
  status: BoardStatus;
  rankBy: RankBy;
  maxParticipants: Int;
  start: IsoDate;
  breakdownAttributes: string[];
  metricId?: string;
  pointsSystemId?: string;
  end?: IsoDate;
  startTime?: string;
  endTime?: string;
  runUnit?: RunUnit;
  runInterval?: Int;
}

// ---- streaks ----

export type WeekStart = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';

export interface StreakSettings {
  enabled: boolean;
  frequency: 'daily' | 'weekly' | 'monthly';
  /** A period counts when these metrics reach their thresholds in it (all, or any: see mode). */
  metrics: { metricId: Uuid; threshold: number & tags.ExclusiveMinimum<0> & tags.Maximum<1e12> }[] & tags.MaxItems<20>;
  mode?: 'all' | 'any';
  weekStart?: WeekStart;
  initialFreezes?: Int & tags.Minimum<0> & tags.Maximum<100>;
  /** Every this many days a user earns freezeAutoEarnAmount freezes (0: never). */
  freezeAutoEarnInterval?: Int & tags.Minimum<0> & tags.Maximum<3650>;
  freezeAutoEarnAmount?: Int & tags.Minimum<0> & tags.Maximum<100>;
  maxFreezes?: Int & tags.Minimum<0> & tags.Maximum<100>;
}

export type StreakSettingsResponse = Required<StreakSettings>;

export interface FreezesBody {
  freezes: { userId: UserId }[];
}

/**
 * An issue about one user of a streak freeze or restore: the spec's fields,
 * and the same again as `@trophyso/node` reads them (`userId`, `level`,
 * `reason`, all required there), so that both kinds of client can parse it.
 */
export interface UserIssue extends AdminIssue {
  userId: string;
  level: AdminIssue['severity'];
  reason: string;
}

export interface FreezesResponse {
  issues: UserIssue[];
}

export interface PausesBody {
  /** Dates are YYYY-MM-DD in the user's zone, from today on. */
  pauses: { userId: UserId; start: string; end: string }[];
}

export interface AdminStreakPause {
  id: string;
  userId: string;
  start: IsoDate;
  end: IsoDate;
  /** `active` while the pause covers or will cover a day; `archived` once over (or deleted). */
  status: 'active' | 'archived';
}

export interface RestoreBody {
  users: { id: UserId }[];
}

export interface RestoreResponse {
  restoredUsers: string[];
  issues: UserIssue[];
}

// ---- tenants and keys ----

export interface CreateTenant {
  /** Your identifier for the tenant, sent as the Tenant-ID header. */
  customerId: Name;
  name: Name;
}

export interface UpdateTenant {
  id: Uuid;
  customerId?: Name;
  name?: Name;
}

export interface AdminTenant {
  id: string;
  customerId: string;
  name: string;
  status: string;
  created: IsoDateTime;
  updated: IsoDateTime;
}

/** A key's own rate limit; `perSecond: 0` means no limit. */
export interface RateLimitInput {
  perSecond: number & tags.Minimum<0> & tags.Maximum<1000000>;
  /** Requests allowed at once (default: from perSecond). */
  burst?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000000>;
}

export interface RateLimit {
  perSecond: number;
  /** null when there is no limit. */
  burst: number | null;
}

export interface CreateKey {
  /** The only user the key may act for. */
  userId: UserId;
  /** null (or absent): the deployment's default. */
  rateLimit?: RateLimitInput | null;
}

export interface UpdateKey {
  id: Uuid;
  /** null: back to the deployment's default. */
  rateLimit: RateLimitInput | null;
}

export interface ApplicationKey {
  id: string;
  userId: string;
  /** The secret: shown once, only its hash is stored. */
  key: string;
  prefix: string;
  /** Present when the request set one. */
  rateLimit?: RateLimit | null;
}

export interface UpdatedKey {
  id: string;
  userId: string;
  prefix: string;
  /** null: the deployment's default. */
  rateLimit: RateLimit | null;
}

// ---- webhooks ----

export type { WebhookEventType };
export type WebhookStatus = 'active' | 'inactive';

export interface WebhookFields {
  /** An absolute http or https URL; events are POSTed to it. */
  url: string & tags.MinLength<1> & tags.MaxLength<2048>;
  /** The event types to send (stored once each, in the documented order). */
  eventTypes: WebhookEventType[] & tags.MinItems<1> & tags.MaxItems<50>;
  description?: (string & tags.MaxLength<1000>) | null;
  /** An inactive endpoint's deliveries wait until it is active again (default: active). */
  status?: WebhookStatus;
}

export interface PatchWebhook extends Partial<WebhookFields> {
  id: Uuid;
}

/** An endpoint as listed: never its secret. */
export interface AdminWebhook {
  id: string;
  url: string;
  description: string | null;
  eventTypes: WebhookEventType[];
  status: WebhookStatus;
  created: IsoDateTime;
  updated: IsoDateTime;
}

export interface WebhookWithSecret extends AdminWebhook {
  /** The signing secret (`whsec_…`): in this response only. */
  secret: string;
}

export interface RotatedSecret {
  id: string;
  /** The new signing secret, in this response only; the old one no longer signs. */
  secret: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface WebhookDeliveriesQuery extends ListQuery {
  /** Only deliveries in this state. */
  status?: WebhookDeliveryStatus;
}

/** One event queued for one endpoint, and how sending it went. */
export interface WebhookDelivery {
  id: string;
  webhookId: string;
  /** The same for every endpoint the event went to. */
  eventId: string;
  type: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: Int;
  /** While pending. */
  nextAttemptAt: IsoDateTime | null;
  lastAttemptAt: IsoDateTime | null;
  /** The receiver's HTTP status at the last attempt (null: no answer). */
  lastStatus: Int | null;
  lastError: string | null;
  created: IsoDateTime;
  deliveredAt: IsoDateTime | null;
  /** The body sent, as Trophy shapes it for the type. */
  payload: unknown;
}

export interface Redelivered {
  /** How many dead deliveries were queued again. */
  redelivered: Int;
}

// ---- dead letters ----

/**
 * A change record Postgres refused for good (a data error), kept out of its
 * stream so the rest of the tenant's records are written.
 */
export interface DeadLetter {
  id: string;
  /** The change stream entry's id; also its version, so a late replay never overwrites newer data. */
  streamId: string;
  /** The record's fields as the scripts wrote them; a value holding a NUL character as `{"base64": …}` of its UTF-8. */
  record: Record<string, string | { base64: string }>;
  /** Why Postgres refused it (at the last attempt). */
  error: string;
  /** Postgres's SQLSTATE (null: the record could not be parsed at all). */
  sqlstate: string | null;
  firstFailedAt: IsoDateTime;
  lastFailedAt: IsoDateTime;
  /** Replays tried that failed. */
  replays: Int;
}

export interface DeadLetterReplayed {
  id: string;
  /** Written to Postgres; the dead letter is gone. */
  replayed: true;
}

/** DELETE /admin/v1/users/{id}: the same answer for every erasure of the id. */
export interface ErasedUser {
  id: string;
  erased: true;
  /** When it was erased (a repeat finding nothing more answers the first time). */
  erasedAt: IsoDateTime;
}

/** GET /admin/v1/users/{id}/export: everything held about one user. */
export interface UserExport {
  id: string;
  exportedAt: IsoDateTime;
  profile: User;
  /** Every metric's total. */
  metrics: { key: string; name: string; total: number }[];
  /** Every points system's total, level and awards (oldest first). */
  points: {
    key: string;
    name: string;
    total: number;
    level: PointsLevel | null;
    awards: {
      id: string;
      triggerId: string;
      eventId: string | null;
      awarded: number;
      total: number;
      date: IsoDate;
      at: IsoDateTime;
      boosts: string[];
    }[];
  }[];
  achievements: { id: string; key: string | null; name: string | null; achievedAt: IsoDateTime }[];
  streak: {
    frequency: 'daily' | 'weekly' | 'monthly' | null;
    length: number;
    freezes: number | null;
    /** Every recorded period, of every frequency. */
    history: { frequency: string; periodStart: IsoDate; periodEnd: IsoDate; length: number; usedFreeze: boolean; usedPause: boolean }[];
    pauses: { id: string; start: IsoDate; end: IsoDate }[];
  };
  leaderboards: {
    /** Where the user stands now on live boards. */
    positions: { key: string | null; run: number; group: string[]; rank: number; value: number }[];
    /** Every rank change. */
    history: { key: string | null; run: number; at: IsoDateTime; previousRank: number | null; rank: number | null; previousValue: number | null; value: number | null }[];
    /** Final rankings of finished runs. */
    results: { key: string | null; run: number; group: string[]; rank: number; value: number }[];
  };
  events: { id: string; metric: string | null; value: number; total: number; date: IsoDate; at: IsoDateTime; idempotencyKey: string | null; attributes: Record<string, string> }[];
  /** Daily sums per metric of the user's events whose raw records were dropped past EVENT_RETENTION_DAYS. */
  eventDays: { metric: string | null; date: IsoDate; events: number; value: number }[];
  /** Daily sums per points system of the awards that went with those events. */
  pointsDays: { points: string | null; date: IsoDate; awarded: number }[];
  /** Points boosts aimed at this user. */
  boosts: { id: string; points: string | null; name: string; start: IsoDate; end: IsoDate | null; multiplier: number }[];
  /** Application API keys bound to the user (never the secret). */
  apiKeys: { id: string; prefix: string; created: IsoDateTime }[];
  /** Webhook deliveries about the user or ranking them. */
  webhookDeliveries: { id: string; webhookId: string; type: string; status: string; created: IsoDateTime; deliveredAt: IsoDateTime | null; payload: Record<string, unknown> }[];
  /** Messages Laurel sent or queued to the user (docs/messages.md). */
  messages: Message[];
  /** Laurel's leagues (docs/leagues.md): the user's results of finished runs, oldest first. */
  leagues: { key: string | null; start: IsoDate; end: IsoDate; cohortId: string; tier: string; rank: number; value: number; outcome: string; newTier: string }[];
}

// ---- users (admin reads) ----

export interface UserEventsQuery {
  /** At most this many, newest first (default 20). */
  limit?: Int & tags.Minimum<1> & tags.Maximum<100>;
  /** Only the events of this metric (its id). */
  metricId?: Uuid;
}

/** One event as stored in Postgres. */
export interface AdminUserEvent {
  id: string;
  metricId: string;
  value: number;
  /** The user's metric total after this event. */
  total: number;
  occurredAt: IsoDateTime;
  /** The date in the user's zone. */
  localDate: IsoDate;
  /** Event attributes sent with it (empty when none). */
  attributes: Record<string, string>;
  idempotencyKey: string | null;
}

// ---- analytics ----

/** A range of whole UTC days, both ends included, at most 400 days. */
export interface AnalyticsRange {
  /** First day, YYYY-MM-DD. */
  from: IsoDate;
  /** Last day, YYYY-MM-DD, not before `from`. */
  to: IsoDate;
}

export interface EventsAnalyticsQuery extends AnalyticsRange {
  /** Only this metric. */
  metricId?: Uuid;
}

export interface PointsAnalyticsQuery extends AnalyticsRange {
  /** Only this points system. */
  systemId?: Uuid;
}

/** Events of one metric on one UTC day (days and metrics without events are absent). */
export interface EventsPerDay {
  date: IsoDate;
  metricId: string;
  events: Int;
  /** Sum of the events' values. */
  total: number;
  /** Distinct users who sent an event of this metric that day. */
  activeUsers: Int;
}

/** Points of one system on one UTC day: awards above zero are issued, below zero consumed (as a positive number). */
export interface PointsPerDay {
  date: IsoDate;
  systemId: string;
  /** Points are any number (awards are stored exactly, as numeric). */
  issued: number;
  consumed: number;
  awards: Int;
  /** One entry per trigger that paid that day, by trigger id: their `issued` add up to the row's. */
  byTrigger: PointsByTrigger[];
}

/** One trigger's share of a day's points (see PointsPerDay.byTrigger). */
export interface PointsByTrigger {
  triggerId: string;
  issued: number;
  consumed: number;
}

/** Users with at least one event on one UTC day. */
export interface ActiveUsersPerDay {
  date: IsoDate;
  users: Int;
}

/** How many users had a streak of `length` alive in the range's last period (of the current frequency). */
export interface StreakLengthCount {
  length: Int;
  users: Int;
}

export interface StreakDistribution {
  frequency: 'daily' | 'weekly' | 'monthly';
  lengths: StreakLengthCount[];
}

export interface AchievementCompletionRate {
  achievementId: string;
  key: string;
  name: string;
  /** Completions within the range. */
  completions: Int;
  /** Users who had completed it by the end of the range. */
  completedBy: Int;
  /** Users who existed by the end of the range. */
  users: Int;
  /** completedBy / users (0 without users). */
  rate: number;
}

/** `GET /admin/v1/analytics/experiment`: users whose first active (local) day is in the range. */
export interface ExperimentQuery extends AnalyticsRange {
  /** A user attribute's key: also split the figures by its values. */
  attribute?: string & tags.MinLength<1> & tags.MaxLength<100>;
}

/** Share (0 to 1) of a group's users active on their day 1, 7, 30; null with nobody whose day is over. */
export interface ExperimentRetention {
  d1: number | null;
  d7: number | null;
  d30: number | null;
}

export interface ExperimentGroup {
  users: Int;
  retention: ExperimentRetention;
  /** Mean over the users of their active days among days 0 to 29 (null without users). */
  activeDaysPerUser: number | null;
  /** Events on those active days divided by their number (null without any). */
  eventsPerActiveDay: number | null;
}

export interface ExperimentGroups {
  control: ExperimentGroup;
  experiment: ExperimentGroup;
}

/** Experiment share minus control share, its 95% interval, and the two-sided p-value of the pooled z test. */
export interface ExperimentLift {
  difference: number;
  low: number;
  high: number;
  pValue: number;
}

/** Null when either group has fewer than 30 users in that figure's denominator. */
export interface ExperimentLifts {
  d1: ExperimentLift | null;
  d7: ExperimentLift | null;
  d30: ExperimentLift | null;
}

/** Users whose first active day falls in the week starting Monday `week`: element k is the share active in week k (weeks over only). */
export interface ExperimentCohort {
  week: IsoDate;
  control: (number | null)[];
  experiment: (number | null)[];
}

export interface ExperimentAnalytics {
  from: IsoDate;
  to: IsoDate;
  groups: ExperimentGroups;
  lift: ExperimentLifts;
  cohorts: ExperimentCohort[];
  /** With `attribute`: the groups per value of that attribute (users without one left out). */
  byAttribute?: Record<string, ExperimentGroups>;
}

/** One run of a leaderboard (`GET /admin/v1/analytics/leaderboards/{key}`). */
export interface LeaderboardRunStats {
  /** The run's first and last local dates (end null: a board without an end). */
  start: IsoDate;
  end: IsoDate | null;
  /** Entries in its rankings (every group of a breakdown). */
  participants: Int;
  /** Highest and median score (null without participants); an even count's median is the mean of the middle two. */
  top: number | null;
  median: number | null;
}

// ---- batches of events ----

/** One event of `POST /admin/v1/metrics/events`: a single event's body plus its metric and idempotency key. */
export interface BatchEvent extends EventBody {
  /** The metric's key. */
  key: string & tags.MinLength<1> & tags.MaxLength<100>;
  /** Counts the event once per user and metric, as the single endpoint's Idempotency-Key does. */
  idempotencyKey?: string & tags.MinLength<1> & tags.MaxLength<255>;
}

export type BatchEventsBody = BatchEvent[] & tags.MinItems<1> & tags.MaxItems<1000>;

export interface BatchEventsResponse {
  /** Events queued for processing. */
  accepted: Int;
}

/** An accepted batch item that could not be applied when its turn came. */
export interface BatchRejection {
  id: string;
  /** The batch's id (its queue entry). */
  batchId: string;
  /** The item's position in its batch. */
  index: Int;
  item: BatchEvent;
  /** The status the single event endpoint would have answered. */
  status: Int;
  error: string;
  at: IsoDateTime;
}

/** Laurel's retention settings (Trophy sets these in its dashboard). Every field optional on PUT: omitted ones keep their defaults. */
export interface RetentionSettings {
  /**
   * IANA zone of users who never sent a `tz` (America/New_York unless set;
   * tenants from before Laurel had it keep UTC): their email-due times,
   * streak periods and leaderboard dates and time windows. A user's own
   * zone, sent now or before, always wins.
   */
  defaultTimeZone?: string & tags.MinLength<1> & tags.MaxLength<64>;
  /** Share of new users put in the control group (0 to 1), decided once per user when first seen. */
  controlRatio?: number & tags.Minimum<0> & tags.Maximum<1>;
  /** Whether users may set their own streak rule (PATCH /v1/users/{id}/preferences with `streak`). */
  streakCustomization?: boolean;
  /** Channels of each notification type for users who have not chosen. */
  notificationDefaults?: NotificationPreferences;
  achievementEmails?: { enabled: boolean };
  recapEmails?: { enabled: boolean; frequency?: 'daily' | 'weekly' | 'monthly' | 'yearly' };
  /** Days of inactivity after which each reactivation message is due (ascending, at most 5). */
  reactivationEmails?: { enabled: boolean; days?: (Int & tags.Minimum<1> & tags.Maximum<365>)[] & tags.MinItems<1> & tags.MaxItems<5> };
  streakReminderEmails?: {
    enabled: boolean;
    /** Daily streaks: hours before the user's day ends. */
    dailyHoursBeforeEnd?: Int & tags.Minimum<1> & tags.Maximum<23>;
    /** Weekly streaks: the day and hour (user's zone). */
    weeklyDay?: WeekStart;
    weeklyHour?: Int & tags.Minimum<0> & tags.Maximum<23>;
    /** Monthly streaks: the day of the month and hour. */
    monthlyDay?: Int & tags.Minimum<1> & tags.Maximum<28>;
    monthlyHour?: Int & tags.Minimum<0> & tags.Maximum<23>;
  };
}

/** The settings in force, every field filled in. */
export interface RetentionSettingsResponse {
  defaultTimeZone: string;
  controlRatio: number;
  streakCustomization: boolean;
  notificationDefaults: Required<NotificationPreferences>;
  achievementEmails: { enabled: boolean };
  recapEmails: { enabled: boolean; frequency: 'daily' | 'weekly' | 'monthly' | 'yearly' };
  reactivationEmails: { enabled: boolean; days: number[] };
  streakReminderEmails: {
    enabled: boolean;
    dailyHoursBeforeEnd: number;
    weeklyDay: WeekStart;
    weeklyHour: number;
    monthlyDay: number;
    monthlyHour: number;
  };
}

/** An admin key as listed (its secret is shown once: on creation and rotation). */
export interface AdminApiKey {
  id: string;
  name: string;
  /** The readable first part of the key (`{prefix}.{body}`). */
  prefix: string;
  status: 'active' | 'inactive';
  created: string;
  /** Last use, to the minute (null: never used). */
  lastUsed: string | null;
  /** `api`: made here; `bootstrap`: printed at the first start; `environment`: ADMIN_API_KEY, managed by that variable. */
  source: 'api' | 'bootstrap' | 'environment';
}

export interface AdminApiKeyWithSecret extends AdminApiKey {
  /** The whole key, in this response only. */
  key: string;
}

export interface CreateAdminKey {
  name: Name;
}

export interface PatchAdminKey {
  /** `inactive` revokes the key, `active` re-activates it (the key itself does not change). */
  status: 'active' | 'inactive';
}

/** One change made through the Admin API. */
export interface AuditEntry {
  id: string;
  time: string;
  /** The acting admin key (never its secret). */
  keyId: string;
  keyPrefix: string;
  /** null for account-level resources (tenants, admin keys). */
  tenantId: string | null;
  method: string;
  /** The route's pattern, and the path requested. */
  route: string;
  path: string;
  /** The kind of resource, from the route (`metrics`, `points/triggers`, `admin-api-keys`, …). */
  resource: string;
  /** The ids (or keys) it names; empty for a singleton (retention, streak settings). */
  resourceIds: string[];
  action: string;
  status: number;
  /** For updates: each changed field's value before and after, by resource id (secrets masked). */
  changes: Record<string, Record<string, { before: unknown; after: unknown }>> | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last. */
  nextCursor: string | null;
}

export interface AuditQuery {
  tenant?: Uuid;
  resource?: string & tags.MaxLength<100>;
  keyId?: string & tags.MaxLength<100>;
  /** ISO 8601 times, both included. */
  since?: string & tags.Format<'date-time'>;
  until?: string & tags.Format<'date-time'>;
  limit?: Int & tags.Minimum<1> & tags.Maximum<500>;
  cursor?: string & tags.MaxLength<100>;
}

/** How messages Laurel sends itself are carried (docs/messages.md). */
export type MessageChannel = 'email' | 'apns' | 'fcm' | 'expo';
export type MessageStatus = 'queued' | 'sent' | 'retrying' | 'failed' | 'suppressed';
/** One of Trophy's notification preference types. */
export type MessageType = 'achievement_completed' | 'recap' | 'reactivation' | 'streak_reminder';

/** `PUT /admin/v1/channels/email`. `smtpUrl` holds the password: never answered back. */
export interface EmailChannelSettings {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
  smtpUrl: string & tags.MaxLength<2000>;
  from: { email: string & tags.Format<'email'>; name?: string & tags.MaxLength<200> };
  replyTo?: string & tags.Format<'email'>;
  status: 'active' | 'inactive';
}

/** `PUT /admin/v1/channels/apns`: token-based authentication with a .p8 key. */
export interface ApnsChannelSettings {
  teamId: string & tags.MinLength<1> & tags.MaxLength<20>;
  keyId: string & tags.MinLength<1> & tags.MaxLength<20>;
  /** The app's bundle id, sent as `apns-topic`. */
  bundleId: string & tags.MinLength<1> & tags.MaxLength<200>;
  /** The .p8 key (PEM). Never answered back. */
  signingKey: string & tags.MaxLength<10000>;
  environment: 'production' | 'sandbox';
  /** Base URL replacing Apple's host (proxies, tests). */
  endpoint?: string & tags.MaxLength<2000>;
}

/** Google's service account key file, as downloaded (`private_key` is never answered back). */
export interface FcmServiceAccount {
  project_id: string & tags.MinLength<1> & tags.MaxLength<200>;
  client_email: string & tags.MinLength<1> & tags.MaxLength<500>;
  private_key: string & tags.MaxLength<10000>;
  token_uri: string & tags.MaxLength<2000>;
  [key: string]: unknown;
}

/** `PUT /admin/v1/channels/fcm`. */
export interface FcmChannelSettings {
  serviceAccount: FcmServiceAccount;
  /** Base URL replacing `https://fcm.googleapis.com` (proxies, tests). */
  endpoint?: string & tags.MaxLength<2000>;
}

/** `PUT /admin/v1/channels/expo`. */
export interface ExpoChannelSettings {
  /** Needed when the Expo project enforces push security. Never answered back. */
  accessToken?: string & tags.MaxLength<2000>;
  /** Base URL replacing `https://exp.host` (proxies, tests). */
  endpoint?: string & tags.MaxLength<2000>;
}

/** `POST /admin/v1/channels/{channel}/test`. */
export interface ChannelTestBody {
  userId: string & tags.MinLength<1> & tags.MaxLength<255>;
}

/** The provider's answer to a test message. */
export interface ChannelTestResult {
  /** `sent`, or `failed` (permanent) / `retrying` (transient) as a queued message would record it. */
  status: 'sent' | 'failed' | 'retrying';
  /** The provider's answer. */
  response: string;
}

/** A template's parts, in Liquid. */
export interface MessageTemplateBody {
  email: { subject: string & tags.MaxLength<1000>; html: string & tags.MaxLength<200000>; text?: string & tags.MaxLength<200000> };
  push: { title: string & tags.MaxLength<1000>; body: string & tags.MaxLength<4000> };
}

/** One type's template in `GET /admin/v1/templates`. */
export interface MessageTemplate extends MessageTemplateBody {
  type: MessageType;
  /** Whether this is the shipped default (no template of the tenant's own). */
  default: boolean;
}

/** `POST /admin/v1/templates/{type}/preview`. */
export interface PreviewBody {
  userId: string & tags.MinLength<1> & tags.MaxLength<255>;
  /** A draft to render instead of the saved template (nothing is saved): the console's live preview. */
  template?: MessageTemplateBody;
}

/** A template rendered for one user. */
export interface RenderedMessage {
  email: { subject: string; html: string; text: string };
  push: { title: string; body: string };
}

/** One message in the delivery log. */
export interface Message {
  id: string;
  userId: string;
  type: MessageType;
  channel: MessageChannel;
  status: MessageStatus;
  attempts: number;
  /** The provider's last answer (null before the first attempt). */
  lastResponse: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `GET /admin/v1/messages`. */
export interface MessagesQuery extends ListQuery {
  userId?: string;
  type?: MessageType;
  channel?: MessageChannel;
  status?: MessageStatus;
}

/** `DELETE /admin/v1/channels/{channel}` and `DELETE /admin/v1/templates/{type}`. */
export interface RemovedMessageSetting {
  /** The channel or template type removed. */
  removed: string;
}

// ---- configuration document (environments) ----
// The Admin API's fields under the same names, with keys where it takes ids (`metricKey` for `metricId`…), no ids, no secrets.

/** An attribute filter naming the attribute by key (of the type the filter is for). */
export interface ConfigAttributeFilter {
  attributeKey: Key;
  attributeValue: string & tags.MaxLength<255>;
}
type ConfigFilters = (ConfigAttributeFilter[] & tags.MaxItems<20>) | null;

// Each is the Admin API's create type with its id fields swapped for key fields, so the names stay the same.
export type ConfigMetric = CreateMetric;

export type ConfigAttribute = CreateAttribute;

export type ConfigTrigger = Omit<CreateTrigger, 'metricId' | 'achievementId' | 'userAttributes' | 'eventAttributes'> & {
  metricKey?: Key;
  achievementKey?: Key;
  userAttributes?: ConfigFilters;
  eventAttributes?: ConfigFilters;
};

export type ConfigLevel = CreateLevel;

/** A boost for users by attributes (or everyone); boosts aimed at one user are user data, not configuration. */
export type ConfigBoost = Omit<CreateBoost, 'userId' | 'userAttributes'> & { userAttributes?: ConfigFilters };

export type ConfigPointsSystem = SystemFields & {
  key: Key;
  levels?: ConfigLevel[] & tags.MaxItems<100>;
  triggers?: ConfigTrigger[] & tags.MaxItems<100>;
  boosts?: ConfigBoost[] & tags.MaxItems<100>;
};

export type ConfigAchievement = Omit<CreateAchievement, 'metricId' | 'prerequisiteIds' | 'userAttributes' | 'eventAttributes'> & {
  metricKey?: Key;
  prerequisiteKeys?: Key[] & tags.MinItems<1> & tags.MaxItems<50>;
  userAttributes?: ConfigFilters;
  eventAttributes?: ConfigFilters;
};

export type ConfigStreak = Omit<StreakSettings, 'metrics'> & {
  metrics: { metricKey: Key; threshold: number & tags.ExclusiveMinimum<0> & tags.Maximum<1e12> }[] & tags.MaxItems<20>;
};

export type ConfigLeaderboard = Omit<CreateBoard, 'metricId' | 'pointsSystemId' | 'breakdownAttributes'> & {
  metricKey?: Key;
  pointsSystemKey?: Key;
  /** User attribute keys: one board per combination of their values. */
  breakdownAttributeKeys?: Key[] & tags.MaxItems<5>;
};

/** A webhook endpoint without its secret (a created one gets a new secret: rotate it to read it). */
export type ConfigWebhook = WebhookFields;

/** The email channel; `smtpUrl` without its password (the target's stored one is kept). */
export interface ConfigEmailChannel extends EmailChannelSettings {
  channel: 'email';
}

/** The APNs channel without its .p8 `signingKey` (the target's stored one is kept). */
export interface ConfigApnsChannel extends Omit<ApnsChannelSettings, 'signingKey'> {
  channel: 'apns';
}

/** A service account key file without `private_key` and `private_key_id` (the target's stored ones are kept). */
export interface ConfigFcmServiceAccount {
  project_id: string & tags.MinLength<1> & tags.MaxLength<200>;
  client_email: string & tags.MinLength<1> & tags.MaxLength<500>;
  token_uri: string & tags.MaxLength<2000>;
  [key: string]: unknown;
}

export interface ConfigFcmChannel extends Omit<FcmChannelSettings, 'serviceAccount'> {
  channel: 'fcm';
  serviceAccount: ConfigFcmServiceAccount;
}

/** The Expo channel without its `accessToken` (the target's stored one is kept). */
export interface ConfigExpoChannel extends Omit<ExpoChannelSettings, 'accessToken'> {
  channel: 'expo';
}

/** A configured message channel, named by `channel`, less its credentials. */
export type ConfigChannel = ConfigEmailChannel | ConfigApnsChannel | ConfigFcmChannel | ConfigExpoChannel;

/** A template of the tenant's own for one type (types without one use the shipped default). */
export interface ConfigTemplate extends MessageTemplateBody {
  type: MessageType;
}

/** A tenant's whole configuration. Each kind is optional on input; a pull gives every kind. */
export interface ConfigResources {
  metrics?: ConfigMetric[] & tags.MaxItems<1000>;
  attributes?: ConfigAttribute[] & tags.MaxItems<1000>;
  achievements?: ConfigAchievement[] & tags.MaxItems<1000>;
  pointsSystems?: ConfigPointsSystem[] & tags.MaxItems<1000>;
  streak?: ConfigStreak;
  leaderboards?: ConfigLeaderboard[] & tags.MaxItems<1000>;
  retention?: RetentionSettings;
  webhooks?: ConfigWebhook[] & tags.MaxItems<1000>;
  channels?: ConfigChannel[] & tags.MaxItems<4>;
  templates?: ConfigTemplate[] & tags.MaxItems<4>;
}

export interface ConfigDocument {
  /** The config version it was pulled at (ignored on input: use If-Match). */
  version?: number;
  resources: ConfigResources;
}

export interface ConfigQuery {
  /** Delete what the document lacks. */
  prune?: boolean;
}

/** One changed field of an updated resource (a nested entry's field is `triggers[<identity>].points`). */
export interface ConfigFieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

export interface ConfigChange {
  /** The resource kind, as under `resources`. */
  kind: string;
  /** The resource's key (its identity for resources without one: url, name). */
  key: string;
}

export interface ConfigPlan {
  /** The config version planned against (plan) or made (PUT, revert; unchanged when nothing changed). */
  version: number;
  creations: (ConfigChange & { after: unknown })[];
  updates: (ConfigChange & { changes: ConfigFieldChange[] })[];
  deletions: (ConfigChange & { before: unknown })[];
}

export interface ConfigProblem {
  /** Where in the document, e.g. `resources.leaderboards[0].metricKey`. */
  path: string;
  message: string;
}

export interface ConfigRefused {
  error: string;
  problems: ConfigProblem[];
}

export interface ConfigHistoryEntry {
  version: number;
  at: IsoDateTime;
  /** The id of the API key that made it (as `GET /admin/v1/admin-api-keys` lists it; ADMIN_API_KEY's stays the same while the variable is set); never the key. */
  keyId: string;
  /** How many creations, updates and deletions it held. */
  changes: number;
}

export interface ConfigRevert {
  version: number & tags.Type<'uint32'>;
}
