import { DateTime } from 'luxon';
/**
 * Calendar math in a user's zone. The server computes every date the scripts
 * need; Lua never sees a clock or a zone database.
 */
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatter(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      // en-CA formats dates as YYYY-MM-DD.
      f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      f = null;
    }
    if (formatters.size < 10_000) formatters.set(zone, f);
  }
  return f;
}

/** The zone of users who never sent one, for a tenant that chose none (Trophy's: Eastern Time). */
export const DEFAULT_TIME_ZONE = 'America/New_York';
/** A tenant's default where none is recorded: configs compiled before there was one, all from tenants kept on UTC. */
export const LEGACY_TIME_ZONE = 'UTC';

/** A user's zone: their own when known (sent now or earlier), else the tenant's default. */
export const zoneOr = (own: string | null | undefined, tenantDefault: string): string => own || tenantDefault;

const ZONE_SHAPE = /^(UTC|[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){1,2})$/;

/** The canonical spelling of an IANA zone name, or null when it is not one. */
export function canonicalZone(tz: string): string | null {
  if (!ZONE_SHAPE.test(tz)) return null;
  const f = formatter(tz);
  return f ? f.resolvedOptions().timeZone : null;
}

/**
 * A zone's last answer, kept for the minute it was asked in: every zone's
 * offset is a whole number of minutes, so nothing it formats changes within
 * one. Formatting with Intl costs microseconds, and the event path asks for
 * the same zones again and again.
 */
class PerMinute {
  private readonly last = new Map<string, { minute: number; value: string }>();
  constructor(private readonly compute: (ms: number, zone: string) => string) {}
  get(ms: number, zone: string): string {
    const minute = Math.floor(ms / 60_000);
    const hit = this.last.get(zone);
    if (hit && hit.minute === minute) return hit.value;
    const value = this.compute(ms, zone);
    if (this.last.size >= 10_000) this.last.clear();
    this.last.set(zone, { minute, value });
    return value;
  }
}

const dates = new PerMinute((ms, zone) => formatter(zone)!.format(ms));

/** The calendar date (YYYY-MM-DD) at `ms` on the user's clock. */
export function localDate(ms: number, zone: string): string {
  return dates.get(ms, zone);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Pure date conversions asked for the same few days all the time: remembered (a bounded map). */
export function remembered<K, V>(fn: (k: K) => V): (k: K) => V {
  const seen = new Map<K, V>();
  return (k) => {
    let v = seen.get(k);
    if (v === undefined && !seen.has(k)) {
      v = fn(k);
      if (seen.size >= 4096) seen.clear();
      seen.set(k, v);
    }
    return v as V;
  };
}

/**
 * Dates Laurel takes, in every request: years 1900 to 2999. Period math steps
 * past a given date (the next week or month), and Postgres cannot read such a
 * step past year 9999, so a bound well inside keeps every date computable.
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2999;

/** The UTC date (YYYY-MM-DD) of an instant: "today in UTC" is `utcDate(clock.now())`. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Days since 1970-01-01 for a YYYY-MM-DD date, or null when it is not a real date within MIN_YEAR..MAX_YEAR. */
export const dayNumber = remembered((date: string): number | null => {
  const m = ISO_DATE.exec(date);
  if (!m) return null;
  const year = Number(m[1]);
  if (year < MIN_YEAR || year > MAX_YEAR) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (utcDate(ms) !== date) return null;
  return ms / 86_400_000;
});

export const dateFromDay = remembered((day: number): string => utcDate(day * 86_400_000));

export type Aggregation = 'daily' | 'weekly' | 'monthly';

/** First day of the period that contains `day` (weeks start on Monday). */
export function periodStartDay(day: number, unit: Aggregation): number {
  if (unit === 'daily') return day;
  if (unit === 'weekly') return day - ((new Date(day * 86_400_000).getUTCDay() + 6) % 7);
  const d = new Date(day * 86_400_000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 86_400_000;
}

/** First day of the period after the one starting at `start`. */
export function nextPeriodDay(start: number, unit: Aggregation): number {
  if (unit === 'daily') return start + 1;
  if (unit === 'weekly') return start + 7;
  const d = new Date(start * 86_400_000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 86_400_000;
}

const clockFormatters = new Map<string, Intl.DateTimeFormat>();

const times = new PerMinute((ms, zone) => {
  let f = clockFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    if (clockFormatters.size < 10_000) clockFormatters.set(zone, f);
  }
  return f.format(ms);
});

/** The wall-clock time (HH:mm, 24h) at `ms` in a zone. */
export function localTime(ms: number, zone: string): string {
  return times.get(ms, zone);
}

/** The instant (ms) of a wall-clock hour on a local date in a zone (a time skipped by DST moves forward, as clocks do). */
export function zonedMs(date: string, hour: number, zone: string): number {
  return DateTime.fromISO(`${date}T${String(hour).padStart(2, '0')}:00`, { zone }).toMillis();
}

/** The local hour (0-23) at `ms` in a zone. */
export function localHour(ms: number, zone: string): number {
  return Number(localTime(ms, zone).slice(0, 2));
}

export type RecapUnit = Aggregation | 'yearly';

/** The recap period holding day `day` (Monday weeks): its first day and the first day after it. */
export function recapPeriod(day: number, unit: RecapUnit): { start: number; next: number } {
  if (unit === 'yearly') {
    const y = new Date(day * 86_400_000).getUTCFullYear();
    return { start: Date.UTC(y, 0, 1) / 86_400_000, next: Date.UTC(y + 1, 0, 1) / 86_400_000 };
  }
  const start = periodStartDay(day, unit);
  return { start, next: nextPeriodDay(start, unit) };
}
