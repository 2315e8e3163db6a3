import type { Ctx } from '../../context';
import { invalid } from '../../errors';
import typia from 'typia';
import { Input, io, ok, route } from '../define';
import { localDate } from '../../domain/time';
import { userJson } from '../../domain/users';
import { achievementJson } from '../../domain/achievements';
import { boardJson, boardNames } from '../../domain/leaderboards';
import { FREQ_CODE, periodDates } from '../../domain/streaks';
import { percentileCuts, percentileOf, PeriodUnit } from '../../store/wrapped-percentiles';
import type { TenantConfig } from '../../store/tenant-config';
import type { WrappedActivityPeriod, WrappedMetricValues, WrappedQuery, WrappedResponse, WrappedStreak } from '../../wire/app';
import { readUser } from '../../services/user-calls';
import { yearRecord } from '../../store/wrapped-year';
import { userPeriods } from '../../store/streak-periods';
import { zoneIn } from '../../domain/user-hash';

/** Trophy's year in review, computed from the durable record in Postgres. */
export function wrappedRoutes(ctx: Ctx) {
  return [
    route({
      method: 'get', path: '/v1/users/:id/wrapped', operationId: 'users_wrapped', tag: 'Users', auth: 'application',
      summary: "A user's year in review",
      description: 'Computed from the durable store (after writing any of the user\'s records still unflushed). ' +
        'Percentiles come from a table the scheduler refreshes hourly (final once a period has ended everywhere). A year after the current one is 422.',
      query: io(typia.http.createValidateQuery<WrappedQuery>(), typia.json.schema<WrappedQuery>()),
      responses: { 200: { description: 'The year in review', schema: typia.json.schema<WrappedResponse>() } },
      handler: (x) => wrapped(ctx, x),
    }),
  ];
}

const DAY = 86_400_000;
const dayOf = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY;
const dateOf = (day: number) => {
  const d = new Date(day * DAY);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
};
/** Weeks start on Monday, as in event summaries. */
const mondayOf = (date: string) => {
  const day = dayOf(date);
  return dateOf(day - ((new Date(day * DAY).getUTCDay() + 6) % 7));
};
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Changes per item and local date within the year, and each item's total before it. */
interface Series {
  before: Map<string, number>;
  byDate: Map<string, Map<string, number>>;
}

function series(rows: { item: string; d: string | null; v: number }[]): Series {
  const s: Series = { before: new Map(), byDate: new Map() };
  for (const r of rows) {
    if (r.d === null) s.before.set(r.item, (s.before.get(r.item) ?? 0) + r.v);
    else {
      let m = s.byDate.get(r.item);
      if (!m) s.byDate.set(r.item, (m = new Map()));
      m.set(r.d, (m.get(r.d) ?? 0) + r.v);
    }
  }
  return s;
}

/** An item's change within [from, to] and its total at the end of `to`; null when it did not move in the period. */
function over(s: Series, item: string, from: string, to: string): { currentTotal: number; changeThisPeriod: number; percentChange: number } | null {
  let change = 0;
  let upTo = s.before.get(item) ?? 0;
  let moved = false;
  for (const [d, v] of s.byDate.get(item) ?? []) {
    if (d > to) continue;
    upTo += v;
    if (d >= from) {
      change += v;
      moved = true;
    }
  }
  if (!moved) return null;
  const total = Number(upTo.toPrecision(15));
  const changed = Number(change.toPrecision(15));
  const base = total - changed;
  return { currentTotal: total, changeThisPeriod: changed, percentChange: base === 0 ? 0 : round1((changed / Math.abs(base)) * 100) };
}

async function wrapped(ctx: Ctx, x: Input<'/v1/users/:id/wrapped', WrappedQuery, undefined>) {
  // Read-your-writes: any of the user's records still in the stream are written first.
  const u = await readUser(ctx, x, x.params.id, { postgres: true });
  const cfg = u.cfg;
  const zone = zoneIn(u.fields, cfg.defaultZone);
  const thisYear = Number(localDate(ctx.clock.now(), zone).slice(0, 4));
  const year = x.query.year ?? thisYear;
  if (year > thisYear) throw invalid(`year must be an integer from 1 to ${thisYear}`);
  const first = `${String(year).padStart(4, '0')}-01-01`;
  const last = `${String(year).padStart(4, '0')}-12-31`;
  const db = ctx.db;
  const record = await yearRecord(db, {
    tenantId: u.tenant.id, userId: u.id, first, last, achievementIds: [...cfg.achievementsById.keys()], boardIds: [...cfg.boardsBySlot.values()].map((b) => b.id),
  });
  const metrics = series(record.metrics);
  const attrs = series(record.attributes);
  const points = series(record.points);
  const achieved = record.completions
    .map((c) => ({ id: c.id, at: c.at.getTime(), d: localDate(c.at.getTime(), zone) }))
    .filter((c) => c.d >= first && c.d <= last);

  // Activity: events per local day; the most active day, week and month have the most events (the earliest on a tie).
  const perDay = new Map(record.eventCounts.map((r) => [r.d, r.n]));
  const busiest = (key: (d: string) => string) => {
    const sums = new Map<string, number>();
    for (const [d, n] of perDay) sums.set(key(d), (sums.get(key(d)) ?? 0) + n);
    let best: string | null = null;
    for (const [k, n] of sums) if (best === null || n > sums.get(best)! || (n === sums.get(best)! && k < best)) best = k;
    return { best, count: sums.size };
  };
  const days = busiest((d) => d);
  const weeks = busiest(mondayOf);
  const months = busiest((d) => d.slice(0, 7));
  const day = days.best ?? first;
  const week = weeks.best ?? mondayOf(first);
  const weekEnd = dateOf(dayOf(week) + 6);
  const month = months.best ?? first.slice(0, 7);
  const monthEnd = dateOf(Date.UTC(year, Number(month.slice(5)), 1) / DAY - 1);

  const cuts = await percentileCuts(db, u.tenant.id, [
    { unit: 'w', start: week },
    { unit: 'm', start: `${month}-01` },
    { unit: 'y', start: first },
  ]);

  const period = (from: string, to: string, unit: PeriodUnit | null, start: string): WrappedActivityPeriod => {
    // A week may reach into the next or previous year: its figures count this year's days.
    const lo = from < first ? first : from;
    const hi = to > last ? last : to;
    const percentile = (kind: 'm' | 'p', item: string, change: number) => {
      const c = unit && cuts.get(`${unit}|${start}|${kind}|${item}`);
      return c ? { percentileThisPeriod: percentileOf(c, change) } : {};
    };
    const out: WrappedActivityPeriod = { metrics: {}, points: {}, achievements: [], leaderboards: {} };
    for (const m of [...cfg.metricsById.values()].sort((a, b) => a.slot - b.slot)) {
      const f = over(metrics, m.id, lo, hi);
      if (!f) continue;
      const byAttribute: Record<string, Record<string, WrappedMetricValues>> = {};
      for (const item of attrs.byDate.keys()) {
        const [metricId, key, value] = item.split('\x1f') as [string, string, string];
        if (metricId !== m.id) continue;
        const a = over(attrs, item, lo, hi);
        if (a) (byAttribute[key] ??= {})[value] = { name: m.name, units: m.units || null, ...a };
      }
      out.metrics[m.key] = { name: m.name, units: m.units || null, ...f, ...percentile('m', m.id, f.changeThisPeriod), byAttribute };
    }
    for (const s of [...cfg.systemsBySlot.values()].sort((a, b) => a.slot - b.slot)) {
      const f = over(points, s.id, lo, hi);
      if (f) out.points[s.key] = { name: s.name, description: s.description ?? null, ...f, ...percentile('p', s.id, f.changeThisPeriod) };
    }
    for (const c of achieved.filter((x) => x.d >= lo && x.d <= hi).sort((a, b) => a.at - b.at)) {
      const a = cfg.achievementsById.get(c.id);
      if (a) out.achievements.push(achievementJson(a, (id) => cfg.metricsById.get(id)?.name, c.at) as unknown as WrappedActivityPeriod['achievements'][number]);
    }
    const boards = new Map([...cfg.boardsBySlot.values()].map((b) => [b.id, b]));
    const best = new Map<string, { rank: number; value: number }>();
    for (const r of record.ranks) {
      if (r.d < lo || r.d > hi) continue;
      const held = best.get(r.id);
      if (!held || r.rank < held.rank || (r.rank === held.rank && r.value > held.value)) best.set(r.id, { rank: r.rank, value: r.value });
    }
    for (const [id, r] of best) {
      const b = boards.get(id);
      if (b) out.leaderboards[b.key] = { ...(boardJson(b, boardNames(cfg, b)) as object), status: b.status, rank: r.rank, value: r.value } as WrappedActivityPeriod['leaderboards'][string];
    }
    return out;
  };

  const body: WrappedResponse = {
    user: userJson(u.id, u.fields),
    activity: {
      daysActive: days.count,
      weeksActive: weeks.count,
      monthsActive: months.count,
      mostActiveDay: { date: day, ...period(day, day, null, day) },
      mostActiveWeek: { start: week, end: weekEnd, ...period(week, weekEnd, 'w', week) },
      mostActiveMonth: { month: Number(month.slice(5)) - 1, ...period(`${month}-01`, monthEnd, 'm', `${month}-01`) },
      entireYear: { ...period(first, last, 'y', first), longestStreak: await longestStreak(ctx, cfg, u.tenant.id, u.id, first, last) },
    },
  };
  return ok(body);
}

/** The longest streak reached within the year (its length when at its longest, from its first period to that one). */
async function longestStreak(ctx: Ctx, cfg: TenantConfig, tenantId: string, userId: string, first: string, last: string): Promise<WrappedStreak> {
  const sk = cfg.streak;
  const none: WrappedStreak = { length: 0, frequency: sk?.frequency ?? 'daily', periodStart: null, periodEnd: null, started: null };
  if (!sk || dayOf(first) < dayOf('1900-01-01')) return none;
  const f = FREQ_CODE[sk.frequency];
  const rows = await userPeriods(ctx.db, tenantId, userId, f);
  let best: { i: number; length: number } | null = null;
  rows.forEach((r, i) => {
    const p = periodDates(f, r.period, sk.weekStart);
    if (p.end < first || p.start > last) return;
    if (r.length > 0 && (!best || r.length > best.length)) best = { i, length: r.length };
  });
  if (!best) return none;
  const { i, length } = best as { i: number; length: number };
  // It started at the latest extension to length 1 at or before its longest period.
  let s = i;
  while (s > 0 && !(rows[s]!.length === 1 && !rows[s]!.usedFreeze && !rows[s]!.usedPause)) s--;
  const started = periodDates(f, rows[s]!.period, sk.weekStart).start;
  return { length, frequency: sk.frequency, periodStart: started, periodEnd: periodDates(f, rows[i]!.period, sk.weekStart).end, started };
}
