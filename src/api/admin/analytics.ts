import typia, { type IValidation } from 'typia';
import type { Ctx } from '../../context';
import { io, ok, route, type Schema } from '../define';
import { notFound, invalid } from '../../errors';
import { periodIndexes } from '../../domain/streaks';
import { experimentFigures } from '../../domain/experiment';
import { runDates, runIndex } from '../../domain/leaderboards';
import { addDays, DailyRollups } from '../../store/rollups';
import { firstEventDay, openTriggerPoints } from '../../store/activity-record';
import { userActivity } from '../../store/experiment';
import {
  achievementCompletions, activeUsersPerDay, closedPointsDays, closedTriggerPoints, eventsPerDay, runStats, streakLengthCounts, usersCreatedBefore,
} from '../../store/analytics';
import { streakSettingsOf } from '../../store/streak-settings';
import type { Tenant } from '../../store/tenants';
import type {
  AchievementCompletionRate, ActiveUsersPerDay, AnalyticsRange, EventsAnalyticsQuery, EventsPerDay, ExperimentAnalytics, ExperimentQuery,
  LeaderboardRunStats, PointsAnalyticsQuery, PointsPerDay, StreakDistribution,
} from '../../wire/admin';

/** The longest range one request may cover: every query below scans at most this many days of one tenant's index. */
export const MAX_RANGE_DAYS = 400;
const DAY_MS = 86_400_000;

/** Midnight UTC of a YYYY-MM-DD that names a real day (the format alone lets 2026-02-30 through). */
function day(date: string, name: string): Date {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== date) throw invalid(`Invalid query.${name}: ${date} is not a day of the calendar`);
  return d;
}

/**
 * A range query: its parameters as an object (each given once), validated by
 * typia with nothing else allowed (an unknown parameter is 422 naming it),
 * and its range checked (`bounds`: 422) before any handler runs.
 */
const rangeQuery = <T extends AnalyticsRange>(validate: (x: unknown) => IValidation<T>, schema: Schema<T>) =>
  io((q: URLSearchParams) => {
    const r = validate(Object.fromEntries(q));
    if (r.success) bounds(r.data);
    return r;
  }, schema);

/** The range's first instant and the instant after it ends, checked: real days, in order, at most MAX_RANGE_DAYS. */
function bounds(q: AnalyticsRange): { start: Date; end: Date } {
  const start = day(q.from, 'from');
  const last = day(q.to, 'to');
  const days = (last.getTime() - start.getTime()) / DAY_MS + 1;
  if (!(days >= 1)) throw invalid('to must not be before from');
  if (days > MAX_RANGE_DAYS) throw invalid(`The range may cover at most ${MAX_RANGE_DAYS} days`);
  return { start, end: new Date(last.getTime() + DAY_MS) };
}

/** What the plain range reads (`GET /admin/v1/analytics/{name}`) say of themselves in /openapi.json. */
const ranged = <N extends string, R>(name: N, summary: string, schema: Schema<R>) => ({
  method: 'get', path: `/admin/v1/analytics/${name}`, operationId: `admin_analytics_${name.replace('-', '_')}`, tag: 'Admin: analytics', auth: 'admin',
  summary,
  description: 'Read from Postgres once it holds every acknowledged change. `from` and `to` are UTC days, both included, at most 400 days apart; otherwise 422.',
  responses: { 200: { description: summary, schema } },
} as const);

const FREQ = { daily: 'd', weekly: 'w', monthly: 'm' } as const;

/**
 * `GET /admin/v1/analytics/*`: figures over a range of UTC days, read from
 * Postgres once it holds every acknowledged change (read your writes, as
 * every read from Postgres). Per-day figures come from the
 * daily sums of closed days (store/rollups.ts) and, for the days still open,
 * from the rows themselves; the rest are index range scans of one tenant.
 */
export function analyticsRoutes(ctx: Ctx) {
  const rollups = new DailyRollups(ctx);
  const range = rangeQuery(typia.createValidateEquals<AnalyticsRange>(), typia.json.schema<AnalyticsRange>());
  /**
   * Where the range splits: days before `day` are closed and summed (read
   * from the rollups), the rest is summed from the rows from instant `at` on.
   */
  const closedUntil = async (tenant: Tenant, q: AnalyticsRange & { end: Date }): Promise<{ day: string; at: Date }> => {
    const open = await rollups.openFrom(tenant);
    await rollups.ensure(tenant, q.from, q.to, open);
    const after = addDays(q.to, 1);
    const day = open < q.from ? q.from : open > after ? after : open;
    return { day, at: new Date(`${day}T00:00:00Z`) };
  };
  return [
    route({
      ...ranged('events', 'Events per UTC day and metric', typia.json.schema<EventsPerDay[]>()),
      query: rangeQuery(typia.createValidateEquals<EventsAnalyticsQuery>(), typia.json.schema<EventsAnalyticsQuery>()),
      handler: async ({ tenant, query }) => {
        const q = { ...query, ...bounds(query) };
        await ctx.durable.all(tenant);
        const split = await closedUntil(tenant, q);
        return ok(await eventsPerDay(ctx.db, { tenantId: tenant.id, from: q.from, end: q.end }, split, q.metricId?.toLowerCase() ?? null));
      },
    }),
    route({
      ...ranged('points', 'Points issued and consumed per UTC day and system', typia.json.schema<PointsPerDay[]>()),
      query: rangeQuery(typia.createValidateEquals<PointsAnalyticsQuery>(), typia.json.schema<PointsAnalyticsQuery>()),
      handler: async ({ tenant, query }) => {
        const q = { ...query, ...bounds(query) };
        await ctx.durable.all(tenant);
        const split = await closedUntil(tenant, q);
        const systemId = q.systemId?.toLowerCase() ?? null;
        const range = { tenantId: tenant.id, from: q.from, end: q.end };
        const [closed, closedTriggers, open] = await Promise.all([
          closedPointsDays(ctx.db, range, split, systemId),
          closedTriggerPoints(ctx.db, range, split, systemId),
          openTriggerPoints(ctx.db, tenant.id, split.at, q.end, systemId),
        ]);
        // Closed days: the day's sums with their triggers'. Open days: one read per trigger, the day's row their sum.
        const days = new Map<string, PointsPerDay>(closed.map((r) => [`${r.date} ${r.systemId}`, { ...r, byTrigger: [] }]));
        const dayOf = (date: string, systemId: string) => {
          const k = `${date} ${systemId}`;
          let d = days.get(k);
          if (!d) days.set(k, (d = { date, systemId, issued: 0, consumed: 0, awards: 0, byTrigger: [] }));
          return d;
        };
        for (const r of closedTriggers) days.get(`${r.date} ${r.systemId}`)?.byTrigger.push({ triggerId: r.triggerId, issued: r.issued, consumed: r.consumed });
        for (const r of open) {
          const d = dayOf(r.date, r.systemId);
          d.issued += r.issued;
          d.consumed += r.consumed;
          d.awards += r.awards;
          d.byTrigger.push({ triggerId: r.triggerId, issued: r.issued, consumed: r.consumed });
        }
        const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
        const out = [...days.values()].sort((a, b) => byKey(a.date, b.date) || byKey(a.systemId, b.systemId));
        for (const d of out) d.byTrigger.sort((a, b) => byKey(a.triggerId, b.triggerId));
        return ok(out);
      },
    }),
    route({
      ...ranged('active-users', 'Users with an event, per UTC day', typia.json.schema<ActiveUsersPerDay[]>()),
      query: range,
      handler: async ({ tenant, query }) => {
        const q = { ...query, ...bounds(query) };
        await ctx.durable.all(tenant);
        const split = await closedUntil(tenant, q);
        return ok(await activeUsersPerDay(ctx.db, { tenantId: tenant.id, from: q.from, end: q.end }, split));
      },
    }),
    route({
      ...ranged('streaks', 'Users by the length of their streak alive at the end of the range', typia.json.schema<StreakDistribution>()),
      query: range,
      handler: async ({ tenant, query }) => {
        await ctx.durable.all(tenant);
        const { frequency, weekStart } = await streakSettingsOf(ctx.db, tenant.id);
        const f = FREQ[frequency];
        // A streak is alive in a period when it was extended in it or in the one
        // before (it may still be extended): each user's latest of the two counts.
        const last = periodIndexes(query.to, weekStart)[f];
        const rows = await streakLengthCounts(ctx.db, tenant.id, f, last - 1, last);
        return ok({ frequency, lengths: rows });
      },
    }),
    route({
      ...ranged('achievements', 'Completions and completion rate of each achievement', typia.json.schema<AchievementCompletionRate[]>()),
      query: range,
      handler: async ({ tenant, query }) => {
        const q = bounds(query);
        await ctx.durable.all(tenant);
        const [rows, n] = await Promise.all([achievementCompletions(ctx.db, tenant.id, q.start, q.end), usersCreatedBefore(ctx.db, tenant.id, q.end)]);
        return ok(rows.map((r) => ({ ...r, users: n, rate: n ? Math.round((r.completedBy / n) * 1e4) / 1e4 : 0 })));
      },
    }),
    route({
      method: 'get', path: '/admin/v1/analytics/experiment', operationId: 'admin_analytics_experiment', tag: 'Admin: analytics', auth: 'admin',
      summary: 'Retention and engagement of the experiment group against the control group',
      description: 'For the users whose first active local date is between `from` and `to` (both included, at most 400 days apart): '
        + 'd1/d7/d30 retention, active days and events per active day by group, the lift with its 95% interval and p-value, weekly cohorts, '
        + 'and with `attribute` the split by that user attribute. See docs/analytics.md. 422 for a bad range or an unknown attribute.',
      query: rangeQuery(typia.createValidateEquals<ExperimentQuery>(), typia.json.schema<ExperimentQuery>()),
      responses: { 200: { description: 'The figures', schema: typia.json.schema<ExperimentAnalytics>() } },
      handler: async ({ tenant, query: q }) => {
        const attribute = q.attribute ?? null;
        if (attribute !== null && !(await ctx.configs.get(tenant)).userAttributes.has(attribute)) {
          throw invalid(`Invalid query.attribute: "${attribute}" is not a user attribute`);
        }
        await ctx.durable.all(tenant);
        // Day 0 is a user's first date over their whole history: every closed day since the first event is summed.
        const open = await rollups.openFrom(tenant);
        const first = await firstEventDay(ctx.db, tenant.id);
        if (first !== null) await rollups.ensure(tenant, first, addDays(open, -1), open);
        const users = await userActivity(ctx.db, tenant.id, q, { day: open, at: new Date(`${open}T00:00:00Z`) }, attribute);
        return ok(experimentFigures(users, ctx.clock.now(), { from: q.from, to: q.to }, attribute !== null));
      },
    }),
    route({
      method: 'get', path: '/admin/v1/analytics/leaderboards/:key', operationId: 'admin_analytics_leaderboard_runs', tag: 'Admin: analytics', auth: 'admin',
      summary: "Statistics of a leaderboard's runs",
      description: 'One entry per run starting between `from` and `to` (both included, at most 400 days apart): its dates, participants, top and median score. '
        + '404 for an unknown board; 422 for a bad range.',
      query: range,
      responses: { 200: { description: 'The runs, oldest first', schema: typia.json.schema<LeaderboardRunStats[]>() } },
      handler: async ({ tenant, params, query: q }) => {
        const b = (await ctx.configs.get(tenant)).boardsByKey.get(params.key);
        if (!b) throw notFound(`Leaderboard "${params.key}" not found`);
        // The runs starting in the range: from the first run starting on or after `from` to the run holding `to`.
        let r0 = runIndex(b, q.from < b.start ? b.start : q.from)!;
        if (runDates(b, r0).start < q.from) r0++;
        const r1 = runIndex(b, q.to);
        const runs: number[] = [];
        for (let r = r0; r1 !== null && r <= r1; r++) {
          const start = runDates(b, r).start;
          if (b.end !== null && start > b.end) break;
          runs.push(r);
        }
        if (!runs.length) return ok([]);
        await ctx.durable.all(tenant);
        const rows = await runStats(ctx.db, tenant.id, b.id, runs[0]!, runs[runs.length - 1]!);
        const byRun = new Map(rows.map((r) => [r.run, r]));
        return ok(runs.map((r) => {
          const dates = runDates(b, r);
          const s = byRun.get(r);
          return { start: dates.start, end: dates.end, participants: s?.participants ?? 0, top: s?.top ?? null, median: s?.median ?? null };
        }));
      },
    }),
  ];
}
