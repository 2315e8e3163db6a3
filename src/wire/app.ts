import type { tags } from 'typia';
import type { EventLeague } from './leagues';

// The Application API on the wire: what requests carry and responses hold.
// Handlers validate with these types, `/openapi.json` is generated from them
// and the `laurel/client` package is typed by them, so the three agree.
// (Type-only: nothing here exists at run time.)

/** A calendar date, years 1900 to 2999 (MIN_YEAR..MAX_YEAR in src/domain/time.ts). */
export type IsoDate = string & tags.Format<'date'> & tags.Pattern<'^(19|2[0-9])[0-9]{2}-'>;
export type IsoDateTime = string & tags.Format<'date-time'>;
type Int = number & tags.Type<'int32'>;

// ---- requests ----

/** Profile fields accepted wherever a user is created or updated. */
export interface UserInput {
  email?: string & tags.Format<'email'> & tags.MaxLength<320>;
  name?: string & tags.MaxLength<255>;
  /** IANA time zone; streaks, summaries and boosts follow the user's calendar. `null` clears it. */
  tz?: (string & tags.MaxLength<64>) | null;
  deviceTokens?: ((string & tags.MinLength<1> & tags.MaxLength<512>)[] & tags.MaxItems<20>) | null;
  subscribeToEmails?: boolean;
  /** Values of user attributes, by attribute key (each key must be configured). */
  attributes?: Record<string, string & tags.MaxLength<255>>;
}

export interface UserWithId extends UserInput {
  /** Your own identifier for the user. */
  id: string & tags.MinLength<1> & tags.MaxLength<255>;
}

export interface EventBody {
  /** The user the event belongs to; profile fields sent here are saved too. */
  user: UserWithId;
  /** Positive, negative or decimal; bounded so totals keep 15 exact digits. */
  value: number & tags.Minimum<-1e12> & tags.Maximum<1e12>;
  /** Values of event attributes, by attribute key (each key must be configured). */
  attributes?: Record<string, string & tags.MaxLength<255>>;
}

export interface CompleteAchievementBody {
  user: UserWithId;
}

// ---- query strings ----

export interface EventSummaryQuery {
  aggregation: 'daily' | 'weekly' | 'monthly';
  /** First date of the range (the user's local date). */
  startDate: IsoDate;
  /** Last date of the range, at most 400 days after startDate. */
  endDate: IsoDate;
}

export interface UserPointsQuery {
  /** How many recent awards to include (default 10). */
  awards?: Int & tags.Minimum<1> & tags.Maximum<100>;
}

export interface UserAchievementsQuery {
  /** Also list active achievements the user has not completed yet. */
  includeIncomplete?: boolean;
}

export interface UserStreakQuery {
  /** How many periods of history to include, through the current one (default 7). */
  historyPeriods?: Int & tags.Minimum<1> & tags.Maximum<100>;
}

export interface StreaksQuery {
  /** Users to report, repeated or comma-separated; at most 100. */
  userIds: string[];
}

export interface IncludeFinishedQuery {
  /** Include finished ones too. */
  includeFinished?: boolean;
}

export interface AttributesQuery {
  /** Only users with these attribute values: `key:value,key:value`. */
  userAttributes?: string;
}

export interface LeaderboardQuery {
  /** Rankings to skip (default 0). */
  offset?: Int & tags.Minimum<0> & tags.Maximum<1000000>;
  /** Rankings to return (default 10). */
  limit?: Int & tags.Minimum<0> & tags.Maximum<1000>;
  /** A date within the run to show (default: the run holding today). */
  run?: IsoDate;
  /** Return only this user's ranking. */
  userId?: string;
  /** For a leaderboard broken down by attributes, which group: `key:value,key:value`. */
  userAttributes?: string;
}

export interface UserLeaderboardQuery {
  /** A date within the run to show (default: the run holding today). */
  run?: IsoDate;
  /** How many recent rank changes to include (default 10). */
  numEvents?: Int & tags.Minimum<0> & tags.Maximum<100>;
}

// ---- responses ----

export interface ErrorBody {
  /** What went wrong, for people. */
  error: string;
}

export interface KeyValue {
  key: string;
  value: string;
}

export interface User {
  id: string;
  email: string | null;
  name: string | null;
  tz: string | null;
  deviceTokens: string[] | null;
  subscribeToEmails: boolean;
  attributes: Record<string, string>;
  /** In the tenant's control group (assigned once, when first seen): no email-due webhooks. */
  control: boolean;
  created: IsoDateTime;
  updated: IsoDateTime;
}

export interface Achievement {
  id: string;
  key: string;
  name: string;
  /** How it completes: a metric total, a streak length, other achievements, or an API call. */
  trigger: 'metric' | 'streak' | 'api' | 'achievement';
  description: string | null;
  badgeUrl: string | null;
  /** Only users with all these attribute values can complete it. */
  userAttributes: KeyValue[];
  metricId?: string;
  /** The metric total that completes it. */
  metricValue?: number;
  metricName?: string;
  /** Only events with all these attribute values count toward it. */
  eventAttributes?: KeyValue[];
  /** The first of eventAttributes (Trophy's single-filter field). */
  eventAttribute?: KeyValue;
  streakLength?: number;
  /** The achievements that must all be completed first. */
  achievementIds?: string[];
  /** When the user completed it; null when not (yet). Present in a user's view only. */
  achievedAt?: IsoDateTime | null;
}

export interface AchievementWithStats extends Achievement {
  /** How many users completed it. */
  completions: number;
  /** Completions as a percentage of all users. */
  rarity: number;
}

export interface UserAchievement extends AchievementWithStats {
  /** Where the user stands toward completing it. */
  progress: { current: number; target: number };
}

export interface AchievementCompletion {
  completionId: string;
  achievement: Achievement;
  /** Points systems whose total changed, by key. */
  points: Record<string, PointsChange>;
}

export interface MetricProgress {
  id: string;
  key: string;
  name: string;
  status: 'active';
  /** The user's total. */
  current: number;
  /** The metric's achievements, ordered by the total that completes them. */
  achievements: Achievement[];
}

export interface SummaryPoint {
  /** First date of the period. */
  date: IsoDate;
  /** Total at the end of the period. */
  total: number;
  /** Change within the period. */
  change: number;
}

export interface StreakBase {
  length: Int;
  frequency: 'daily' | 'weekly' | 'monthly';
  /** First date of the streak's first period; null without a streak. */
  started: IsoDate | null;
  periodStart: IsoDate | null;
  periodEnd: IsoDate | null;
  /** Last date of the period the streak must be extended by. */
  expires: IsoDate | null;
  /** Freezes held (when freezes are configured). */
  freezes?: Int;
  maxFreezes?: Int;
  freezeAutoEarnInterval?: Int;
  freezeAutoEarnAmount?: Int;
}

export interface EventStreak extends StreakBase {
  /** Whether this event extended the streak. */
  extended: boolean;
}

export interface StreakPeriod {
  periodStart: IsoDate;
  periodEnd: IsoDate;
  length: Int;
  usedPause: boolean;
  usedFreeze?: boolean;
}

export interface StreakPause {
  id: string;
  start: IsoDate;
  end: IsoDate;
}

export interface UserStreak extends StreakBase {
  /** When the streak was last extended. */
  extended: IsoDateTime | null;
  streakHistory: StreakPeriod[];
  /** Pauses covering today or later. */
  pauses: StreakPause[];
}

/** One user in `GET /v1/streaks/rankings` (Trophy's StreakRankingUser). */
export interface StreakRanking {
  userId: string;
  /** Omitted when the user has no name. */
  name?: string;
  streakLength: Int;
}

export interface StreakRankingsQuery {
  /** How many users (default 10). */
  limit?: Int & tags.Minimum<1> & tags.Maximum<100>;
  /** `active` (default): current streaks; `longest`: the longest each user ever reached. */
  type?: 'active' | 'longest';
}

export interface StreakSummary {
  userId: string;
  streakLength: Int;
  extended: IsoDateTime | null;
}

export interface PointsLevel {
  id: string;
  key: string;
  name: string;
  description: string;
  badgeUrl: string | null;
  /** Total at which a user reaches the level. */
  points: Int;
}

export interface PointsBoost {
  id: string;
  name: string;
  status: 'scheduled' | 'active' | 'finished';
  start: IsoDate;
  end: IsoDate | null;
  multiplier: number;
  rounding: 'down' | 'up' | 'nearest';
}

export interface PointsTrigger {
  id: string;
  type: 'metric' | 'achievement' | 'streak' | 'time' | 'user_creation';
  points: Int;
  status: 'active' | 'inactive';
  userAttributes: KeyValue[];
  created: IsoDateTime;
  updated: IsoDateTime;
  metricId?: string;
  metricName?: string;
  metricThreshold?: number;
  eventAttributes?: KeyValue[];
  achievementId?: string;
  achievementName?: string;
  streakLengthThreshold?: Int;
  timeUnit?: 'hour' | 'day';
  timeInterval?: Int;
}

export interface PointsAward {
  id: string;
  awarded: Int;
  date: IsoDateTime;
  /** Total after this award. */
  total: Int;
  /** The trigger as it was when it paid (after an edit or a deletion too; only its id for awards from before versions were kept). */
  trigger: PointsTrigger | { id: string };
  /** Boosts that multiplied this award. */
  boosts: PointsBoost[];
}

interface PointsSystemFields {
  id: string;
  key: string;
  name: string;
  description: string | null;
  badgeUrl: string | null;
  maxPoints: Int | null;
}

export interface PointsChange extends PointsSystemFields {
  total: Int;
  added: Int;
  awards: PointsAward[];
  /** The new level, when it changed (null: below the first one). */
  level?: PointsLevel | null;
}

export interface UserPoints extends PointsSystemFields {
  total: Int;
  level: PointsLevel | null;
  /** Most recent first. */
  awards: PointsAward[];
}

export interface PointsSystem extends PointsSystemFields {
  /** Active triggers. */
  triggers: PointsTrigger[];
}

export interface PointsRange {
  from: Int;
  to: Int;
  users: Int;
}

export interface LevelSummary {
  level: PointsLevel;
  users: Int;
}

export interface Leaderboard {
  id: string;
  key: string;
  name: string;
  description: string | null;
  rankBy: 'metric' | 'points' | 'streak';
  /** The first breakdown attribute key (Trophy's single-breakdown field). */
  breakdownAttribute: string | null;
  breakdownAttributes: string[];
  start: IsoDate;
  end: IsoDate | null;
  /** Daily window (UTC, HH:MM) in which events count. */
  startTime: string | null;
  endTime: string | null;
  maxParticipants: Int;
  /** Repeating runs: each lasts runInterval of these units. */
  runUnit: 'day' | 'month' | 'year' | null;
  runInterval: Int | null;
  /** Required by Trophy on every leaderboard object (boards users can see are never inactive). */
  status: 'scheduled' | 'active' | 'finished';
  metricKey?: string;
  metricName?: string;
  pointsSystemKey?: string;
  pointsSystemName?: string;
}

export type LeaderboardSummary = Leaderboard;

export interface Ranking {
  userId: string;
  userName: string | null;
  rank: Int;
  value: number;
}

export interface LeaderboardRankings extends LeaderboardSummary {
  rankings: Ranking[];
}

export interface RankChange {
  /** The user's local date. */
  date: IsoDate;
  timestamp: IsoDateTime;
  previousRank: Int | null;
  rank: Int | null;
  previousValue: number | null;
  value: number | null;
}

export interface UserLeaderboard extends Leaderboard {
  rank: Int | null;
  value: number | null;
  /** Most recent first. */
  history: RankChange[];
}

export interface LeaderboardChange extends Leaderboard {
  rank: Int | null;
  previousRank: Int | null;
  /** The value that currently earns a place on the board. */
  threshold: number;
  breakdownAttributeValue?: string;
  breakdownAttributeValues?: KeyValue[];
}

export interface EventResponse {
  eventId: string;
  metricId: string;
  /** The user's new total of the metric. */
  total: number;
  /** Achievements this event completed. */
  achievements: Achievement[];
  currentStreak: EventStreak;
  /** Points systems whose total changed, by key. */
  points: Record<string, PointsChange>;
  /** Leaderboards where the user's standing changed, by key. */
  leaderboards: Record<string, LeaderboardChange>;
  /** Laurel's extension: leagues the event moved, by key (docs/leagues.md). */
  leagues: Record<string, EventLeague>;
  /** Present when the request carried an Idempotency-Key. */
  idempotencyKey?: string;
  /** True when the key was seen before: nothing was counted again. */
  idempotentReplayed?: boolean;
}

export interface Health {
  status: 'ok';
}

export interface Readiness {
  status: 'ok' | 'unavailable';
  redis: boolean;
  postgres: boolean;
  /** Entries the flusher has yet to write to Postgres, and the age of the oldest. */
  flusherLag: { entries: Int; seconds: number } | null;
  /** `degraded` while dead letters (records Postgres refused for good) wait for an operator; null when Postgres is unreachable. */
  flusher: 'ok' | 'degraded' | null;
  /** How many, over every tenant (see `GET /admin/v1/dead-letters`). */
  deadLetters: Int | null;
}

/** A notification delivery channel. */
export type NotificationChannel = 'email' | 'push';

/** Channels for each notification type ([]: none). */
export interface NotificationPreferences {
  achievement_completed?: NotificationChannel[] & tags.MaxItems<2>;
  recap?: NotificationChannel[] & tags.MaxItems<2>;
  reactivation?: NotificationChannel[] & tags.MaxItems<2>;
  streak_reminder?: NotificationChannel[] & tags.MaxItems<2>;
}

/** A user's own streak rule (streak customization, where the tenant enables it). */
export interface StreakPreferences {
  /** Whether streaks count for this user (false: length 0, no streak webhooks). */
  enabled?: boolean;
  /** OR: any threshold extends the streak; AND: all of them. */
  evaluationMode?: 'OR' | 'AND';
  metrics?: { key: string & tags.MinLength<1> & tags.MaxLength<255>; threshold: number & tags.ExclusiveMinimum<0> & tags.Maximum<1e12> }[] &
    tags.MinItems<1> & tags.MaxItems<20>;
}

export interface UpdateUserPreferencesRequest {
  notifications?: NotificationPreferences;
  streak?: StreakPreferences;
}

export interface UserPreferencesResponse {
  /** Every type: the user's own choice, else the tenant's default. */
  notifications: Required<NotificationPreferences>;
  /** Present when the user has their own streak rule. */
  streak?: StreakPreferences;
}

/** A metric over a Wrapped period. */
export interface WrappedMetricValues {
  name: string;
  units: string | null;
  /** The total at the end of the period. */
  currentTotal: number;
  changeThisPeriod: number;
  /** The change against the total at the period's start, in percent (0 when that was 0), one decimal. */
  percentChange: number;
  /** Share of the tenant's users active in this metric in the period whose change was at most this user's (weeks, months, the year; from a precomputed table). */
  percentileThisPeriod?: number;
}

export interface WrappedMetric extends WrappedMetricValues {
  /** By event attribute key, then value. */
  byAttribute: Record<string, Record<string, WrappedMetricValues>>;
}

export interface WrappedPoints {
  name: string;
  description: string | null;
  currentTotal: number;
  changeThisPeriod: number;
  percentChange: number;
  percentileThisPeriod?: number;
}

export interface WrappedLeaderboard extends Omit<Leaderboard, 'status'> {
  status: 'inactive' | 'scheduled' | 'active' | 'finished';
  /** The best rank the user held in the period, with the value at it. */
  rank: Int | null;
  value: number | null;
}

export interface WrappedActivityPeriod {
  metrics: Record<string, WrappedMetric>;
  points: Record<string, WrappedPoints>;
  achievements: (Achievement & { achievedAt: IsoDateTime | null })[];
  leaderboards: Record<string, WrappedLeaderboard>;
}

export interface WrappedStreak {
  length: Int;
  frequency: 'daily' | 'weekly' | 'monthly';
  periodStart: IsoDate | null;
  periodEnd: IsoDate | null;
  started: IsoDate | null;
}

export interface WrappedResponse {
  user: User;
  activity: {
    daysActive: Int;
    weeksActive: Int;
    monthsActive: Int;
    mostActiveDay: WrappedActivityPeriod & { date: IsoDate };
    mostActiveWeek: WrappedActivityPeriod & { start: IsoDate; end: IsoDate };
    /** 0 is January. */
    mostActiveMonth: WrappedActivityPeriod & { month: Int & tags.Minimum<0> & tags.Maximum<11> };
    entireYear: WrappedActivityPeriod & { longestStreak: WrappedStreak };
  };
}

export interface WrappedQuery {
  /** Defaults to the current year on the user's clock. */
  year?: Int & tags.Minimum<1>;
}
