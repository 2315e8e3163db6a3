import type { Pool } from 'pg';
import { TIE_BITS } from '../domain/leaderboards';
import type {
  AchievementCompletionRate, ActiveUsersPerDay, EventsPerDay, PointsByTrigger, PointsPerDay,
} from '../wire/admin';

/**
 * The Admin API's analytics figures. A range of UTC days is read in two
 * parts split at `Split`: the closed days from their daily sums (the
 * rollup_* tables), the days from `at` on from the rows themselves.
 */
export interface Split {
  /** The first day not summed yet (YYYY-MM-DD). */
  day: string;
  /** Its midnight UTC. */
  at: Date;
}

/** Days `from` (YYYY-MM-DD) up to the instant `end`, of one tenant. */
export interface Range {
  tenantId: string;
  from: string;
  end: Date;
}

/** Events, their total and active users per UTC day and metric (all metrics, or one). */
export async function eventsPerDay(db: Pool, r: Range, split: Split, metricId: string | null): Promise<EventsPerDay[]> {
  const { rows } = await db.query<EventsPerDay>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, metric_id AS "metricId", events, total::float8 AS total, active_users AS "activeUsers"
     FROM rollup_events WHERE tenant_id = $1 AND day >= $2::date AND day < $3::date AND ($6::uuid IS NULL OR metric_id = $6)
     UNION ALL
     SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), metric_id, count(*)::int, sum(value)::float8, count(DISTINCT user_id)::int
     FROM events
     WHERE tenant_id = $1 AND occurred_at >= $4 AND occurred_at < $5 AND ($6::uuid IS NULL OR metric_id = $6)
     GROUP BY 1, 2
     ORDER BY 1, 2`,
    [r.tenantId, r.from, split.day, split.at, r.end, metricId],
  );
  return rows;
}

/** Closed days' points per day and system (all systems, or one), without their triggers. */
export async function closedPointsDays(db: Pool, r: Range, split: Split, systemId: string | null): Promise<Omit<PointsPerDay, 'byTrigger'>[]> {
  const { rows } = await db.query<Omit<PointsPerDay, 'byTrigger'>>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, system_id AS "systemId", issued::float8 AS issued, consumed::float8 AS consumed, awards
     FROM rollup_points WHERE tenant_id = $1 AND day >= $2::date AND day < $3::date AND ($4::uuid IS NULL OR system_id = $4)`,
    [r.tenantId, r.from, split.day, systemId],
  );
  return rows;
}

/** Closed days' points per day, system and trigger. */
export async function closedTriggerPoints(db: Pool, r: Range, split: Split, systemId: string | null): Promise<(PointsByTrigger & { date: string; systemId: string })[]> {
  const { rows } = await db.query<PointsByTrigger & { date: string; systemId: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, system_id AS "systemId", trigger_id AS "triggerId", issued::float8 AS issued, consumed::float8 AS consumed
     FROM rollup_trigger_points WHERE tenant_id = $1 AND day >= $2::date AND day < $3::date AND ($4::uuid IS NULL OR system_id = $4)`,
    [r.tenantId, r.from, split.day, systemId],
  );
  return rows;
}

/** Users with at least one event, per UTC day (days without any left out). */
export async function activeUsersPerDay(db: Pool, r: Range, split: Split): Promise<ActiveUsersPerDay[]> {
  const { rows } = await db.query<ActiveUsersPerDay>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, active_users AS users
     FROM rollup_days WHERE tenant_id = $1 AND day >= $2::date AND day < $3::date AND active_users > 0
     UNION ALL
     SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), count(DISTINCT user_id)::int
     FROM events WHERE tenant_id = $1 AND occurred_at >= $4 AND occurred_at < $5
     GROUP BY 1
     ORDER BY 1`,
    [r.tenantId, r.from, split.day, split.at, r.end],
  );
  return rows;
}

/**
 * Users per streak length (lengths above 0), each user counted at their
 * latest period among `first`..`last` of one frequency (FREQ_CODE).
 */
export async function streakLengthCounts(db: Pool, tenantId: string, frequency: string, first: number, last: number): Promise<{ length: number; users: number }[]> {
  const { rows } = await db.query<{ length: number; users: number }>(
    `SELECT length, count(*)::int AS users FROM (
       SELECT DISTINCT ON (user_id) length FROM streak_periods
       WHERE tenant_id = $1 AND frequency = $2 AND period BETWEEN $3 AND $4
       ORDER BY user_id, period DESC) latest
     WHERE length > 0
     GROUP BY length ORDER BY length`,
    [tenantId, frequency, first, last],
  );
  return rows;
}

/** Per achievement (in the Admin API's list order): completions in [start, end), and users who completed it before `end`. */
export async function achievementCompletions(db: Pool, tenantId: string, start: Date, end: Date): Promise<Omit<AchievementCompletionRate, 'users' | 'rate'>[]> {
  const { rows } = await db.query<Omit<AchievementCompletionRate, 'users' | 'rate'>>(
    `SELECT a.id AS "achievementId", a.key, a.name,
            count(c.achieved_at) FILTER (WHERE c.achieved_at >= $2)::int AS completions,
            count(c.achieved_at)::int AS "completedBy"
     FROM achievements a
     LEFT JOIN achievement_completions c
       ON c.tenant_id = a.tenant_id AND c.achievement_id = a.id AND c.achieved_at < $3
     WHERE a.tenant_id = $1
     GROUP BY a.id ORDER BY a.slot`,
    [tenantId, start, end],
  );
  return rows;
}

/** Users created before an instant. */
export async function usersCreatedBefore(db: Pool, tenantId: string, end: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE tenant_id = $1 AND created < $2', [tenantId, end]);
  return rows[0]?.n ?? 0;
}

/**
 * Participants, top and median value of each run from `first` to `last`
 * that has any: a run's final rankings once stored, its live entries before
 * (a late flush may still write entries of a run already final: those are
 * left out). A live score is decoded as domain/leaderboards scoreValue does.
 */
export async function runStats(
  db: Pool, tenantId: string, boardId: string, first: number, last: number,
): Promise<{ run: number; participants: number; top: number; median: number }[]> {
  const { rows } = await db.query<{ run: number; participants: number; top: number; median: number }>(
    `WITH b AS (SELECT finalized_run AS last FROM leaderboards WHERE id = $2)
     SELECT run, count(*)::int AS participants, max(v) AS top, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS median FROM (
       SELECT run, value::float8 AS v FROM leaderboard_results, b
       WHERE tenant_id = $1 AND leaderboard_id = $2 AND run BETWEEN $3 AND $4 AND run <= b.last
       UNION ALL
       SELECT run, floor(score / $5)::float8 FROM board_entries, b
       WHERE tenant_id = $1 AND leaderboard_id = $2 AND run BETWEEN $3 AND $4 AND run > b.last AND score IS NOT NULL
     ) x GROUP BY run`,
    [tenantId, boardId, first, last, TIE_BITS],
  );
  return rows;
}
