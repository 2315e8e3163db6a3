import { DateTime } from 'luxon';
import { dateFromDay, dayNumber } from './time';
import type { Leaderboard, LeaderboardChange } from '../wire/app';

export type RankBy = 'metric' | 'points' | 'streak';
export type RunUnit = 'day' | 'month' | 'year';
export type BoardStatus = 'inactive' | 'scheduled' | 'active' | 'finished';

/** A leaderboard as the server and the scripts see it. */
export interface LeaderboardConfig {
  id: string;
  slot: number;
  key: string;
  name: string;
  description: string | null;
  status: BoardStatus;
  rankBy: RankBy;
  metricId: string | null;
  metricSlot: number | null;
  systemId: string | null;
  systemSlot: number | null;
  maxParticipants: number;
  start: string;
  end: string | null;
  startTime: string | null;
  endTime: string | null;
  /** Breakdown attributes: ids (Admin API) and keys (what users carry). */
  breakdownIds: string[];
  breakdownKeys: string[];
  runUnit: RunUnit | null;
  runInterval: number | null;
}

/**
 * Scores pack the value with an update counter so equal values rank by who
 * reached them first: value * 2^22 + (2^22 - 1 - tick). Exact while values
 * stay within ±2^31 and a run sees under 4M updates (then ties may order by
 * an older tick); values beyond are clamped.
 */
export const TIE_BITS = 2 ** 22;

/**
 * A board with a breakdown keeps one sorted set per group of attribute
 * values; the group is written as the values joined by this separator (in
 * Redis keys, change records and Postgres), a character no attribute value
 * may hold.
 */
export const GROUP_SEPARATOR = '\x1f';
export const joinGroup = (values: readonly string[]) => values.join(GROUP_SEPARATOR);
export const splitGroup = (joined: string | null | undefined): string[] => (joined ? joined.split(GROUP_SEPARATOR) : []);
/** The largest board value (a packed score keeps it whole); the Lua prelude carries it. */
export const MAX_VALUE = 2 ** 31 - 1;

/** A packed board score (see TIE_BITS; lua/lib/40-leaderboards.lua packs it) as its value, and as the update counter it carries. */
export function scoreValue(score: number | string): number {
  return Math.floor(Number(score) / TIE_BITS);
}
export function scoreTick(score: number): number {
  return TIE_BITS - 1 - (score - scoreValue(score) * TIE_BITS);
}
/** The score of `value` reached at update `tick` (as the script packs it). */
export function packScore(value: number, tick: number): number {
  return value * TIE_BITS + (TIE_BITS - 1 - (tick % TIE_BITS));
}

/** The run containing a local date (0 for perpetual boards), or null before the start. */
export function runIndex(b: Pick<LeaderboardConfig, 'start' | 'runUnit' | 'runInterval'>, date: string): number | null {
  if (date < b.start) return null;
  if (!b.runUnit || !b.runInterval) return 0;
  if (b.runUnit === 'day') return Math.floor((dayNumber(date)! - dayNumber(b.start)!) / b.runInterval);
  const [sy, sm, sd] = b.start.split('-').map(Number) as [number, number, number];
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  let months = (y - sy) * 12 + (m - sm);
  if (d < sd) months--; // the run boundary falls on the start's day of the month
  const per = b.runUnit === 'month' ? b.runInterval : b.runInterval * 12;
  return Math.floor(months / per);
}

/** First and last local date of run `r`. */
export function runDates(b: Pick<LeaderboardConfig, 'start' | 'end' | 'runUnit' | 'runInterval'>, r: number): { start: string; end: string | null } {
  if (!b.runUnit || !b.runInterval) return { start: b.start, end: b.end };
  if (b.runUnit === 'day') {
    const s = dayNumber(b.start)! + r * b.runInterval;
    return { start: dateFromDay(s), end: dateFromDay(s + b.runInterval - 1) };
  }
  const per = b.runUnit === 'month' ? b.runInterval : b.runInterval * 12;
  const base = DateTime.fromISO(b.start, { zone: 'UTC' });
  return {
    start: base.plus({ months: r * per }).toISODate()!,
    end: base.plus({ months: (r + 1) * per }).minus({ days: 1 }).toISODate()!,
  };
}

/**
 * Which run an event at local date/time counts in, or null when the board
 * is not taking it (not active, outside its dates or its daily time window).
 */
export function eventRun(b: LeaderboardConfig, date: string, time: string): number | null {
  if (b.status !== 'active') return null;
  if (b.end !== null && date > b.end) return null;
  if (b.startTime && time < b.startTime) return null;
  if (b.endTime && time >= b.endTime) return null;
  return runIndex(b, date);
}

/** The board's fields as Trophy's LeaderboardResponse gives them. */
export function boardJson(b: LeaderboardConfig, names: { metric?: string; metricKey?: string; system?: string; systemKey?: string }): Leaderboard {
  const out: Leaderboard = {
    id: b.id,
    key: b.key,
    name: b.name,
    description: b.description,
    rankBy: b.rankBy,
    breakdownAttribute: b.breakdownKeys[0] ?? null,
    breakdownAttributes: b.breakdownKeys,
    start: b.start,
    end: b.end,
    startTime: b.startTime,
    endTime: b.endTime,
    maxParticipants: b.maxParticipants,
    runUnit: b.runUnit,
    runInterval: b.runInterval,
    // Boards users see are never inactive (callers filter them out first).
    status: b.status as Leaderboard['status'],
  };
  if (b.rankBy === 'metric') {
    out.metricKey = names.metricKey;
    out.metricName = names.metric;
  }
  if (b.rankBy === 'points') {
    out.pointsSystemKey = names.systemKey;
    out.pointsSystemName = names.system;
  }
  return out;
}

/**
 * A board's run is final once its last day has ended everywhere: UTC−12 is
 * the last zone to leave a date, 12 hours after UTC does.
 */
export function runFinalAt(end: string): number {
  return Date.parse(`${end}T00:00:00Z`) + 36 * 3_600_000;
}

/**
 * A board's status at `now`. A board past its end is finished from the
 * moment its last run is final (when the scheduler records it too), so a
 * read never shows it running while the scheduler has yet to get there.
 */
export function statusAt(b: { status: BoardStatus; end: string | null }, now: number): BoardStatus {
  return (b.status === 'active' || b.status === 'scheduled') && b.end !== null && now >= runFinalAt(b.end) ? 'finished' : b.status;
}

/** The board as it stands at `now` (see statusAt): the same object while its status holds. */
export function boardAt(b: LeaderboardConfig, now: number): LeaderboardConfig {
  const status = statusAt(b, now);
  return status === b.status ? b : { ...b, status };
}

/**
 * The local date whose run a read means when it names none: today, or for a
 * finished board its end date once today is past it (its last run).
 */
export function readDate(b: Pick<LeaderboardConfig, 'status' | 'start' | 'end'>, today: string): string {
  if (b.status === 'finished' && b.end !== null && today > b.end) return b.end;
  return today < b.start ? b.start : today;
}

/**
 * Whether run `r` has ended everywhere by `now`, so that the scheduler may
 * have stored its final rankings (its last day is the run's, or the
 * board's end date when that comes first).
 */
export function runMayBeFinal(b: Pick<LeaderboardConfig, 'start' | 'end' | 'runUnit' | 'runInterval'>, r: number, now: number): boolean {
  const dates = runDates(b, r);
  const last = b.end !== null && (dates.end === null || dates.end > b.end) ? b.end : dates.end;
  return last !== null && now >= runFinalAt(last);
}

/** A scheduled board opens when its start date begins anywhere (UTC+14 is first). */
export function opensAt(start: string): number {
  return Date.parse(`${start}T00:00:00Z`) - 14 * 3_600_000;
}

/**
 * What the event script needs of a board this event may move (see
 * lua/lib/40-leaderboards.lua): slot, id, run, ranked by ('m'etric, 'p'oints,
 * 's'treak), metric and system slot (-1: none), repeating, participant
 * limit, breakdown attribute keys.
 */
export interface EventBoard {
  k: number;
  i: string;
  r: number;
  rb: 'm' | 'p' | 's';
  ms: number;
  ss: number;
  rep: 0 | 1;
  mx: number;
  bd: string[];
}

/** The boards this event may move. */
export function eventBoards(boards: Iterable<LeaderboardConfig>, metricId: string, date: string, time: string, streaksOn: boolean): EventBoard[] {
  const out: EventBoard[] = [];
  for (const b of boards) {
    if (b.rankBy === 'metric' && b.metricId !== metricId) continue;
    if (b.rankBy === 'streak' && !streaksOn) continue;
    const r = eventRun(b, date, time);
    if (r === null) continue;
    out.push({
      k: b.slot, i: b.id, r, rb: RANK_CODE[b.rankBy], ms: b.metricSlot ?? -1, ss: b.systemSlot ?? -1,
      rep: b.runUnit ? 1 : 0, mx: b.maxParticipants, bd: b.breakdownKeys,
    });
  }
  return out;
}
const RANK_CODE = { metric: 'm', points: 'p', streak: 's' } as const;

/** One board change as the script reports it (-1 stands for "none"). */
export interface ScriptBoard {
  k: number;
  i: string;
  r: number;
  g: string[] | Record<string, never>;
  rk: number;
  pr: number;
  pv: number;
  th: number;
  nv: number;
  /** The user's exact score, and members the update pushed off the board. */
  sc: string;
  ev: string[] | Record<string, never>;
}

export interface BoardLookup {
  boardsBySlot: Map<number, LeaderboardConfig>;
  metricsById: Map<string, { key: string; name: string }>;
  systemsBySlot: Map<number, { key: string; name: string }>;
}

export function boardNames(cfg: BoardLookup, b: LeaderboardConfig) {
  const m = b.metricId ? cfg.metricsById.get(b.metricId) : undefined;
  const s = b.systemSlot !== null ? cfg.systemsBySlot.get(b.systemSlot) : undefined;
  return { metric: m?.name, metricKey: m?.key, system: s?.name, systemKey: s?.key };
}

/**
 * A board run's dates, worked out once per board config and run (configs
 * are replaced, never changed, so the cache goes with them).
 */
const RUN_DATES = new WeakMap<LeaderboardConfig, Map<number, ReturnType<typeof runDates>>>();
function cachedRunDates(b: LeaderboardConfig, r: number): ReturnType<typeof runDates> {
  let runs = RUN_DATES.get(b);
  if (!runs) RUN_DATES.set(b, (runs = new Map()));
  let dates = runs.get(r);
  if (!dates) {
    if (runs.size >= 8) runs.clear(); // a repeating board moves on to new runs
    runs.set(r, (dates = runDates(b, r)));
  }
  return dates;
}

/** The event response's `leaderboards` map: boards whose standing of the user changed. */
export function boardsResponse(cfg: BoardLookup, raw: string | undefined): Record<string, LeaderboardChange> {
  const out: Record<string, LeaderboardChange> = {};
  if (!raw || raw === '[]') return out;
  for (const c of JSON.parse(raw) as ScriptBoard[]) {
    const b = cfg.boardsBySlot.get(c.k);
    // An event moves active boards only (eventRun).
    if (!b || b.status === 'inactive') continue;
    const group = Array.isArray(c.g) ? c.g : [];
    const run = cachedRunDates(b, c.r);
    // Built afresh, then given the run and the change. A copy of a cached
    // board (Object.assign onto {}, or a spread with more fields after it)
    // comes out in V8's dictionary mode: about 1.4 KB and 1.6 µs a board,
    // against 0.45 KB and 0.1 µs.
    const entry = boardJson(b, boardNames(cfg, b)) as LeaderboardChange;
    entry.start = run.start;
    entry.end = run.end;
    entry.rank = c.rk > 0 ? c.rk : null;
    entry.previousRank = c.pr > 0 ? c.pr : null;
    entry.threshold = c.th;
    if (b.breakdownKeys.length) {
      entry.breakdownAttributeValue = group[0];
      entry.breakdownAttributeValues = b.breakdownKeys.map((key, i) => ({ key, value: group[i]! }));
    }
    out[b.key] = entry;
  }
  return out;
}

/** A user's move on a board run, as `leaderboard.rank_changed` (webhooks and live updates) shows it. */
export function rankChangeJson(cfg: BoardLookup, b: LeaderboardConfig, c: ScriptBoard) {
  const dates = runDates(b, c.r);
  return {
    ...boardJson(b, boardNames(cfg, b)),
    start: dates.start,
    end: dates.end,
    rank: c.rk > 0 ? c.rk : null,
    value: c.rk > 0 ? c.nv : null,
    previousRank: c.pr > 0 ? c.pr : null,
    previousValue: c.pr > 0 ? c.pv : null,
  };
}
