import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { describe } from '../../http/body';
import { unprocessable } from '../../http/errors';
import { reply, Request, Route } from '../../http/server';
import { periodIndexes } from '../../domain/streaks';
import type { WeekStart } from '../wire/admin';
import type {
  AchievementCompletionRate, ActiveUsersPerDay, AnalyticsRange, EventsAnalyticsQuery, EventsPerDay, PointsAnalyticsQuery, PointsPerDay,
  StreakDistribution,
} from '../wire/admin';

/** The longest range one request may cover: every query below scans at most this many days of one tenant's index. */
export const MAX_RANGE_DAYS = 400;
const DAY_MS = 86_400_000;

/** Midnight UTC of a YYYY-MM-DD that names a real day (the format alone lets 2026-02-30 through). */
function day(date: string, name: string): Date {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== date) throw unprocessable(`Invalid query.${name}: ${date} is not a day of the calendar`);
  return d;
}

/** The query parameters as an object (each given once), validated by typia: 422 naming the field otherwise. */
function query<T extends AnalyticsRange>(req: Request, validate: (x: unknown) => typia.IValidation<T>): T & { start: Date; end: Date } {
  const raw: Record<string, string> = {};
  for (const [k, v] of req.query) raw[k] = v;
  const r = validate(raw);
  if (!r.success) throw unprocessable(describe(r.errors, 'query'));
  const start = day(r.data.from, 'from');
  const last = day(r.data.to, 'to');
  const days = (last.getTime() - start.getTime()) / DAY_MS + 1;
  if (!(days >= 1)) throw unprocessable('to must not be before from');
  if (days > MAX_RANGE_DAYS) throw unprocessable(`The range may cover at most ${MAX_RANGE_DAYS} days`);
  return { ...r.data, start, end: new Date(last.getTime() + DAY_MS) };
}

const FREQ = { daily: 'd', weekly: 'w', monthly: 'm' } as const;
type Frequency = keyof typeof FREQ;

/**
 * `GET /admin/v1/analytics/*`: figures over a range of UTC days, read from
 * Postgres (what the flusher has written). Each query is an index range scan
 * of one tenant's rows between two instants (see the analytics migration).
 */
export function analyticsRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/analytics/events',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const q = query(req, typia.createValidateEquals<EventsAnalyticsQuery>());
        const { rows } = await ctx.db.query<EventsPerDay>(
          `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, metric_id AS "metricId",
                  count(*)::int AS events, sum(value)::float8 AS total
           FROM events
           WHERE tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3 AND ($4::uuid IS NULL OR metric_id = $4)
           GROUP BY 1, 2 ORDER BY 1, 2`,
          [tenant.id, q.start, q.end, q.metricId?.toLowerCase() ?? null],
        );
        return reply(200, rows);
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/analytics/points',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const q = query(req, typia.createValidateEquals<PointsAnalyticsQuery>());
        const { rows } = await ctx.db.query<PointsPerDay>(
          `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, system_id AS "systemId",
                  coalesce(sum(awarded) FILTER (WHERE awarded > 0), 0)::int AS issued,
                  coalesce(-sum(awarded) FILTER (WHERE awarded < 0), 0)::int AS consumed,
                  count(*)::int AS awards
           FROM points_awards
           WHERE tenant_id = $1 AND at >= $2 AND at < $3 AND ($4::uuid IS NULL OR system_id = $4)
           GROUP BY 1, 2 ORDER BY 1, 2`,
          [tenant.id, q.start, q.end, q.systemId?.toLowerCase() ?? null],
        );
        return reply(200, rows);
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/analytics/active-users',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const q = query(req, typia.createValidateEquals<AnalyticsRange>());
        const { rows } = await ctx.db.query<ActiveUsersPerDay>(
          `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(DISTINCT user_id)::int AS users
           FROM events WHERE tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3
           GROUP BY 1 ORDER BY 1`,
          [tenant.id, q.start, q.end],
        );
        return reply(200, rows);
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/analytics/streaks',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const q = query(req, typia.createValidateEquals<AnalyticsRange>());
        const { rows: settings } = await ctx.db.query<{ frequency: Frequency; week_start: WeekStart }>(
          'SELECT frequency, week_start FROM streak_settings WHERE tenant_id = $1',
          [tenant.id],
        );
        const frequency = settings[0]?.frequency ?? 'daily';
        const weekStart = settings[0]?.week_start ?? 'monday';
        const f = FREQ[frequency];
        // The periods of the current frequency that overlap the range.
        const first = periodIndexes(q.from, weekStart)[f];
        const last = periodIndexes(q.to, weekStart)[f];
        const { rows } = await ctx.db.query<{ length: number; users: number }>(
          `SELECT length, count(*)::int AS users FROM (
             SELECT max(length) AS length FROM streak_periods
             WHERE tenant_id = $1 AND frequency = $2 AND period BETWEEN $3 AND $4 AND length > 0
             GROUP BY user_id) best
           GROUP BY length ORDER BY length`,
          [tenant.id, f, first, last],
        );
        const out: StreakDistribution = { frequency, lengths: rows };
        return reply(200, out);
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/analytics/achievements',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const q = query(req, typia.createValidateEquals<AnalyticsRange>());
        const [{ rows }, { rows: users }] = await Promise.all([
          ctx.db.query<Omit<AchievementCompletionRate, 'users' | 'rate'>>(
            `SELECT a.id AS "achievementId", a.key, a.name,
                    count(c.achieved_at) FILTER (WHERE c.achieved_at >= $2)::int AS completions,
                    count(c.achieved_at)::int AS "completedBy"
             FROM achievements a
             LEFT JOIN achievement_completions c
               ON c.tenant_id = a.tenant_id AND c.achievement_id = a.id AND c.achieved_at < $3
             WHERE a.tenant_id = $1
             GROUP BY a.id ORDER BY a.slot`, // the Admin API list order
            [tenant.id, q.start, q.end],
          ),
          ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE tenant_id = $1 AND created < $2', [tenant.id, q.end]),
        ]);
        const n = users[0]?.n ?? 0;
        const out: AchievementCompletionRate[] = rows.map((r) => ({ ...r, users: n, rate: n ? Math.round((r.completedBy / n) * 1e4) / 1e4 : 0 }));
        return reply(200, out);
      },
    },
  ];
}
