import { dateFromDay, dayNumber, remembered } from './time';
import type { EventStreak, StreakPeriod } from '../wire/app';

export type Frequency = 'daily' | 'weekly' | 'monthly';
export type WeekStart = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';
export const WEEK_STARTS: WeekStart[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
export const FREQ_CODE: Record<Frequency, 'd' | 'w' | 'm'> = { daily: 'd', weekly: 'w', monthly: 'm' };

/** Streak settings as the server and the scripts see them. */
export interface StreakConfig {
  enabled: boolean;
  frequency: Frequency;
  mode: 'all' | 'any';
  weekStart: WeekStart;
  metrics: { metricId: string; slot: number; threshold: number }[];
  initialFreezes: number;
  freezeAutoEarnInterval: number;
  freezeAutoEarnAmount: number;
  maxFreezes: number;
}

/**
 * Day number (since 1970-01-01) of the first week start: 1970-01-01 was a
 * Thursday, so a Monday week starts on day 4 (1970-01-05), a Sunday one on 3.
 */
export function weekOffset(weekStart: WeekStart): number {
  return (WEEK_STARTS.indexOf(weekStart) + 4) % 7;
}

type PeriodIndexes = Readonly<{ d: number; w: number; m: number }>;

/** By week start, then date: an event asks up to four times, and a day's events share a few dates. */
const PERIODS = new Map(WEEK_STARTS.map((ws) => [ws, remembered((date: string): PeriodIndexes => {
  const d = dayNumber(date)!;
  const [y, m] = date.split('-').map(Number) as [number, number];
  return { d, w: Math.floor((d - weekOffset(ws)) / 7), m: y * 12 + m - 1 };
})]));

/** The current period of each frequency for a local date (one object per date: read, never changed). */
export function periodIndexes(date: string, weekStart: WeekStart): PeriodIndexes {
  return PERIODS.get(weekStart)!(date);
}

/** First and last date of a period. */
export function periodDates(f: 'd' | 'w' | 'm', idx: number, weekStart: WeekStart): { start: string; end: string } {
  if (f === 'd') return { start: dateFromDay(idx), end: dateFromDay(idx) };
  if (f === 'w') {
    const s = idx * 7 + weekOffset(weekStart);
    return { start: dateFromDay(s), end: dateFromDay(s + 6) };
  }
  const y = Math.floor(idx / 12);
  const m = (idx % 12) + 1;
  const start = Date.UTC(y, m - 1, 1) / 86_400_000;
  const end = Date.UTC(y, m, 1) / 86_400_000 - 1;
  return { start: dateFromDay(start), end: dateFromDay(end) };
}


/** A frequency's state as the script keeps it (S<f> in the user hash). */
export interface StreakState {
  len: number;
  started: number;
  lp: number;
  ext: number;
  lost: number;
}

export function parseState(raw: string | undefined): StreakState {
  if (!raw) return { len: 0, started: -1, lp: -1, ext: 0, lost: 0 };
  const p = raw.split('|').map(Number);
  return { len: p[1]!, started: p[2]!, lp: p[3]!, ext: p[5]!, lost: p[6]! };
}

/** Trophy's streak fields, from the active frequency's state at period `n` (with `extended`: as an event response has them). */
export function streakJson(cfg: StreakConfig, st: StreakState, n: number, freezes: number | null, extended: boolean): EventStreak;
export function streakJson(cfg: StreakConfig, st: StreakState, n: number, freezes: number | null): Omit<EventStreak, 'extended'>;
export function streakJson(cfg: StreakConfig, st: StreakState, n: number, freezes: number | null, extended?: boolean): Omit<EventStreak, 'extended'> & { extended?: boolean } {
  const f = FREQ_CODE[cfg.frequency];
  const cur = periodDates(f, n, cfg.weekStart);
  const alive = st.len > 0;
  const out: Omit<EventStreak, 'extended'> & { extended?: boolean } = {
    length: st.len,
    frequency: cfg.frequency,
    started: alive && st.started >= 0 ? periodDates(f, st.started, cfg.weekStart).start : null,
    periodStart: cur.start,
    periodEnd: cur.end,
    // Extended this period: it lasts through the next one; else it must be extended in this one.
    expires: alive ? periodDates(f, st.lp >= n ? n + 1 : n, cfg.weekStart).end : null,
  };
  if (extended !== undefined) out.extended = extended;
  if (cfg.maxFreezes > 0 && freezes !== null) {
    out.freezes = freezes;
    out.maxFreezes = cfg.maxFreezes;
    if (cfg.freezeAutoEarnInterval > 0 && cfg.freezeAutoEarnAmount > 0) {
      out.freezeAutoEarnInterval = cfg.freezeAutoEarnInterval;
      out.freezeAutoEarnAmount = cfg.freezeAutoEarnAmount;
    }
  }
  return out;
}

/**
 * The program part the scripts read (see lua/lib/15-streaks.lua): the active
 * frequency ('' when off), mode, thresholds by metric slot, initial freezes,
 * earn interval and amount, maximum, day of the first week start.
 */
export interface StreakProgram {
  act: '' | 'd' | 'w' | 'm';
  mode: 'all' | 'any';
  th: Record<string, number>;
  ini: number;
  ei: number;
  ea: number;
  max: number;
  wo: number;
}

export function streakProgram(cfg: StreakConfig | null): StreakProgram {
  if (!cfg?.enabled) return { act: '', mode: 'all', th: {}, ini: 0, ei: 0, ea: 0, max: 0, wo: 0 };
  return {
    act: FREQ_CODE[cfg.frequency],
    mode: cfg.mode,
    th: Object.fromEntries(cfg.metrics.map((m) => [String(m.slot), m.threshold])),
    ini: cfg.initialFreezes,
    ei: cfg.freezeAutoEarnInterval,
    ea: cfg.freezeAutoEarnAmount,
    max: cfg.maxFreezes,
    wo: weekOffset(cfg.weekStart),
  };
}

/** The script argument for the current periods and active frequency ('' when off). */
export function streakArg(cfg: StreakConfig | null, date: string): string {
  if (!cfg?.enabled) return '';
  const i = periodIndexes(date, cfg.weekStart);
  return `${i.d},${i.w},${i.m},${FREQ_CODE[cfg.frequency]}`;
}

/**
 * A user's own streak rule (streak customization), as kept in their hash
 * (`sp`) and read by the scripts in place of the tenant's: on (0: never
 * extends), mode, and thresholds by metric slot.
 */
export interface OwnStreakRule {
  on: 0 | 1;
  mode: 'all' | 'any';
  th: Record<string, number>;
}

/** The rule after a preferences update (omitted parts kept, else the tenant's), or what is wrong with it. */
export function ownStreakRule(
  sk: StreakConfig,
  current: OwnStreakRule | null,
  prefs: { enabled?: boolean; evaluationMode?: 'OR' | 'AND'; metrics?: { key: string; threshold: number }[] },
  slotOf: (key: string) => number | undefined,
): OwnStreakRule | string {
  const base: OwnStreakRule = current ?? { on: 1, mode: sk.mode, th: Object.fromEntries(sk.metrics.map((m) => [String(m.slot), m.threshold])) };
  let th = base.th;
  if (prefs.metrics) {
    th = {};
    for (const m of prefs.metrics) {
      const slot = slotOf(m.key);
      if (slot === undefined) return `Unknown metric "${m.key}" in streak.metrics`;
      if (th[String(slot)] !== undefined) return `Metric "${m.key}" appears twice in streak.metrics`;
      th[String(slot)] = m.threshold;
    }
  }
  return {
    on: prefs.enabled === undefined ? base.on : prefs.enabled ? 1 : 0,
    mode: prefs.evaluationMode === undefined ? base.mode : prefs.evaluationMode === 'AND' ? 'all' : 'any',
    th,
  };
}

/** A recorded streak period (Postgres's streak_periods, or the user hash's recent history). */
export interface PeriodRow {
  period: number;
  length: number;
  used_freeze: boolean;
  used_pause: boolean;
}

export interface PauseJson {
  id: string;
  start: string;
  end: string;
}

/** Periods of history the user hash keeps (lua/lib/15-streaks.lua STK_KEPT): a read's default window. */
export const HISTORY_KEPT = 7;

/**
 * The recorded periods from `from` on, from the user hash's recent history
 * ('since;p,l,fr,pa;...', the latest HISTORY_KEPT periods recorded, complete
 * from period `since`); null when it may lack one of them (a longer window,
 * or history from before the field existed): then Postgres has them.
 */
export function recentPeriods(raw: string, from: number): Map<number, PeriodRow> | null {
  if (!raw) return null;
  const [since, ...entries] = raw.split(';');
  if (from < Number(since)) return null;
  const rows = entries.map((e): PeriodRow => {
    const [period, length, fr, pa] = e.split(',').map(Number);
    return { period: period!, length: length!, used_freeze: fr === 1, used_pause: pa === 1 };
  });
  // Full: older periods were dropped, and the window may reach them.
  if (rows.length >= HISTORY_KEPT && rows[0]!.period > from) return null;
  return new Map(rows.map((r) => [r.period, r]));
}

/**
 * Pauses covering day `today` or later, from the user hash's copy
 * ([start day, end day, id], in start order; see api/admin/streaks.ts
 * syncPauses).
 */
export function pausesFrom(raw: string, today: number): PauseJson[] {
  if (!raw) return [];
  const all = JSON.parse(raw) as [number, number, string][];
  return all.filter((p) => p[1] >= today).map((p) => ({ id: p[2], start: dateFromDay(p[0]), end: dateFromDay(p[1]) }));
}

/**
 * The last `count` periods through the current one `n`: settled and extended
 * periods as recorded; the current period shows the live length while the
 * streak is alive; any other period is 0.
 */
export function streakHistory(cfg: StreakConfig, st: StreakState, n: number, count: number, recorded: Map<number, PeriodRow>) {
  const f = FREQ_CODE[cfg.frequency];
  const out: StreakPeriod[] = [];
  for (let p = n - count + 1; p <= n; p++) {
    const row = recorded.get(p);
    const { start, end } = periodDates(f, p, cfg.weekStart);
    const entry: StreakPeriod = {
      periodStart: start,
      periodEnd: end,
      length: row ? row.length : p === n ? st.len : 0,
      usedPause: row?.used_pause ?? false,
    };
    if (cfg.maxFreezes > 0) entry.usedFreeze = row?.used_freeze ?? false;
    out.push(entry);
  }
  return out;
}
