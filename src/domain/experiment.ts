import { dateFromDay, dayNumber, localDate } from './time';
import type {
  ExperimentAnalytics, ExperimentCohort, ExperimentGroup, ExperimentGroups, ExperimentLift, ExperimentLifts,
} from '../wire/admin';

/**
 * The experiment figures (control group against the rest), computed from one
 * summary per user. Pure: the store reads the summaries, this adds them up.
 * Every date is a local date as recorded on the user's events.
 */

/** What the figures need of one user whose day 0 (first active date) is in the range. */
export interface UserActivity {
  /** Day 0, YYYY-MM-DD. */
  first: string;
  control: boolean;
  /** The user's current zone: their day N is over once it is past on their clock. */
  zone: string;
  /** The split attribute's value (null: none, or no split asked). */
  attr: string | null;
  /** Active on day 1, 7, 30. */
  d1: boolean;
  d7: boolean;
  d30: boolean;
  /** Active days among days 0 to 29, and their events. */
  days: number;
  events: number;
  /** The weeks with activity, counted from the Monday of day 0's week (0: that week). */
  weeks: number[];
}

const HORIZONS = [1, 7, 30] as const;
type Horizon = `d${(typeof HORIZONS)[number]}`;
/** Fewer users than this in either group's denominator: no lift. */
export const MIN_LIFT_USERS = 30;
const Z95 = 1.96;
/** Weeks a user's summary holds (the bits of a bigint): a cohort's array stops there, about 14 months on. */
export const MAX_WEEKS = 63;

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * The complementary error function, to about 1e-13 relative error: the
 * Taylor series of erf below 3 (at most a few digits lost to cancellation),
 * the continued fraction of erfc above (converges fast out there).
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 3) {
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  if (x > 27) return 0; // below the smallest double
  // erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated from the tail.
  let t = x;
  for (let n = 80; n >= 1; n--) t = x + n / 2 / t;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / t;
}

/** The standard normal distribution function Φ(z). */
export const normalCdf = (z: number) => 0.5 * erfc(-z / Math.SQRT2);

/**
 * The lift of the experiment share x1/n1 over the control share x2/n2: the
 * difference, its 95% unpooled z interval, and the two-sided p-value of the
 * pooled two-proportion z test. Null when either n is under MIN_LIFT_USERS.
 * Unrounded; the route rounds.
 */
export function twoProportionLift(x1: number, n1: number, x2: number, n2: number): ExperimentLift | null {
  if (n1 < MIN_LIFT_USERS || n2 < MIN_LIFT_USERS) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const difference = p1 - p2;
  const se = Math.sqrt((p1 * (1 - p1)) / n1 + (p2 * (1 - p2)) / n2);
  const p = (x1 + x2) / (n1 + n2);
  const pooled = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
  // Everyone or no one retained in both groups: the shares are equal and nothing tells them apart.
  const pValue = pooled === 0 ? 1 : erfc(Math.abs(difference / pooled) / Math.SQRT2);
  return { difference, low: difference - Z95 * se, high: difference + Z95 * se, pValue };
}

/** Running sums of one group. */
class Tally {
  users = 0;
  days = 0;
  events = 0;
  /** Per horizon: users whose day N is over (n), and of them the active (x). */
  readonly n = { d1: 0, d7: 0, d30: 0 };
  readonly x = { d1: 0, d7: 0, d30: 0 };

  add(u: UserActivity, today: number): void {
    const first = dayNumber(u.first)!;
    this.users++;
    this.days += u.days;
    this.events += u.events;
    for (const h of HORIZONS) {
      const k: Horizon = `d${h}`;
      if (first + h >= today) continue; // day N not over yet on the user's clock
      this.n[k]++;
      if (u[k]) this.x[k]++;
    }
  }

  figures(): ExperimentGroup {
    const share = (k: Horizon) => (this.n[k] ? round4(this.x[k] / this.n[k]) : null);
    return {
      users: this.users,
      retention: { d1: share('d1'), d7: share('d7'), d30: share('d30') },
      activeDaysPerUser: this.users ? round4(this.days / this.users) : null,
      eventsPerActiveDay: this.days ? round4(this.events / this.days) : null,
    };
  }
}

class Split {
  readonly control = new Tally();
  readonly experiment = new Tally();
  add(u: UserActivity, today: number): void {
    (u.control ? this.control : this.experiment).add(u, today);
  }
  figures(): ExperimentGroups {
    return { control: this.control.figures(), experiment: this.experiment.figures() };
  }
}

/** The Monday (day number) of a day's week: day 4 of the epoch, 1970-01-05, was a Monday. */
const mondayOf = (day: number) => day - ((((day - 4) % 7) + 7) % 7);

/** Every figure of the experiment route, at instant `now`, for the users of [from, to]. */
export function experimentFigures(
  users: readonly UserActivity[], now: number, range: { from: string; to: string }, byAttribute: boolean,
): ExperimentAnalytics {
  const todays = new Map<string, number>();
  const todayIn = (zone: string) => {
    let d = todays.get(zone);
    if (d === undefined) todays.set(zone, (d = dayNumber(localDate(now, zone))!));
    return d;
  };
  const all = new Split();
  const attrs = new Map<string, Split>();
  const cohorts = new Map<number, { users: UserActivity[]; earliestToday: number }>();
  for (const u of users) {
    const today = todayIn(u.zone);
    all.add(u, today);
    if (byAttribute && u.attr !== null) {
      let s = attrs.get(u.attr);
      if (!s) attrs.set(u.attr, (s = new Split()));
      s.add(u, today);
    }
    const monday = mondayOf(dayNumber(u.first)!);
    const c = cohorts.get(monday);
    if (c) {
      c.users.push(u);
      c.earliestToday = Math.min(c.earliestToday, today);
    } else cohorts.set(monday, { users: [u], earliestToday: today });
  }

  const lift = {} as ExperimentLifts;
  for (const h of HORIZONS) {
    const k: Horizon = `d${h}`;
    const l = twoProportionLift(all.experiment.x[k], all.experiment.n[k], all.control.x[k], all.control.n[k]);
    lift[k] = l && { difference: round4(l.difference), low: round4(l.low), high: round4(l.high), pValue: round4(l.pValue) };
  }

  const out: ExperimentAnalytics = {
    from: range.from,
    to: range.to,
    groups: all.figures(),
    lift,
    cohorts: [...cohorts.entries()].sort(([a], [b]) => a - b).map(([monday, v]) => cohortRow(monday, v.users, v.earliestToday)),
  };
  if (byAttribute) {
    out.byAttribute = {};
    for (const value of [...attrs.keys()].sort()) out.byAttribute[value] = attrs.get(value)!.figures();
  }
  return out;
}

/** A cohort's weekly shares: week k is listed once its Sunday is past for every user of the cohort. */
function cohortRow(monday: number, users: UserActivity[], earliestToday: number): ExperimentCohort {
  const weeks = Math.min(MAX_WEEKS, Math.max(0, Math.floor((earliestToday - monday) / 7)));
  const shares = (control: boolean): (number | null)[] => {
    const group = users.filter((u) => u.control === control);
    const active = new Array<number>(weeks).fill(0);
    for (const u of group) for (const w of u.weeks) if (w < weeks) active[w]!++;
    return active.map((n) => (group.length ? round4(n / group.length) : null));
  };
  return { week: dateFromDay(monday), control: shares(true), experiment: shares(false) };
}
