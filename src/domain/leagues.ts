import { localDate } from './time';
import { LEAGUE_PREFIX } from './user-hash';
import { FREQ_CODE, periodDates, periodIndexes } from './streaks';
import type { Cadence, EventLeague, LeagueOutcome, LeagueWeekStart, LeagueZoneName } from '../wire/leagues';

/**
 * Leagues (docs/leagues.md): each run, the users who score are put in small
 * cohorts of their tier; at the run's end the top of each cohort moves up a
 * tier and the bottom down. Run math is in the league's own zone, so the
 * boundary is one instant for everyone.
 */
export type LeagueStatus = 'active' | 'inactive';

export interface Tier {
  key: string;
  name: string;
  promote: number;
  relegate: number;
}

/** What a run is played with: fixed when it starts (a change applies from the next run). */
export interface RunParams {
  cohortSize: number;
  tiers: Tier[];
}

export interface LeagueConfig extends RunParams {
  id: string;
  slot: number;
  key: string;
  name: string;
  description: string | null;
  status: LeagueStatus;
  rankBy: 'metric' | 'points';
  metricId: string | null;
  metricSlot: number | null;
  systemId: string | null;
  systemSlot: number | null;
  cadence: Cadence;
  weekStart: LeagueWeekStart;
  timeZone: string;
  /** Parameters changed by an update, from run `fromRun` on. */
  next: (RunParams & { fromRun: number }) | null;
}

/** The run holding a local date: the league's cadence counted as a streak counts its periods (domain/streaks.ts). */
export function runOfDate(l: Pick<LeagueConfig, 'cadence' | 'weekStart'>, date: string): number {
  return periodIndexes(date, l.weekStart)[FREQ_CODE[l.cadence]];
}

/** The run in progress at `now` (ms), in the league's zone. */
export function runAt(l: Pick<LeagueConfig, 'cadence' | 'weekStart' | 'timeZone'>, now: number): number {
  return runOfDate(l, localDate(now, l.timeZone));
}

/** First and last local date of run `r`. */
export function runDates(l: Pick<LeagueConfig, 'cadence' | 'weekStart'>, r: number): { start: string; end: string } {
  return periodDates(FREQ_CODE[l.cadence], r, l.weekStart);
}

/** The parameters run `r` is played with. */
export function runParams(l: LeagueConfig, r: number): RunParams {
  return l.next && r >= l.next.fromRun ? l.next : l;
}

/**
 * The zone of rank `rank` (1-based) in a cohort of `n`: the top
 * floor(promote·n/size) are promoted, the bottom floor(relegate·n/size)
 * below them relegated (lua/lib/50-leagues.lua applies the same rule).
 */
export function zoneOf(rank: number, n: number, size: number, tier: Pick<Tier, 'promote' | 'relegate'>): LeagueZoneName {
  const up = Math.floor((tier.promote * n) / size);
  const down = Math.floor((tier.relegate * n) / size);
  if (rank <= up) return 'promotion';
  if (rank > n - down) return 'relegation';
  return 'stay';
}

export const OUTCOME: Record<LeagueZoneName, LeagueOutcome> = { promotion: 'promoted', relegation: 'relegated', stay: 'stayed' };
export const NEW_TIER_STEP: Record<LeagueZoneName, number> = { promotion: 1, relegation: -1, stay: 0 };

/** A cohort's public id: run, tier index and number within the tier. */
export const cohortId = (run: number, tier: number, no: number) => `${run}-${tier}-${no}`;
export function parseCohortId(id: string): { run: number; tier: number; no: number } | null {
  const m = /^(\d{1,7})-(\d{1,2})-(\d{1,7})$/.exec(id);
  return m ? { run: Number(m[1]), tier: Number(m[2]), no: Number(m[3]) } : null;
}

/** The run parameters as the script keeps them in the run's hash (`cf`): cohort size, and each tier's promote and relegate counts. */
export interface StoredParams {
  sz: number;
  t: [number, number][];
}

export const paramsArg = (p: RunParams) => JSON.stringify({ sz: p.cohortSize, t: p.tiers.map((t) => [t.promote, t.relegate]) } satisfies StoredParams);
export const parseParams = (cf: string) => JSON.parse(cf) as StoredParams;

/** Where finishing `rank` of `n` in a cohort of `tier` leaves a player: the zone, and the tier of the next run. */
export function outcomeAt(cf: StoredParams, tier: number, rank: number, n: number): { zone: LeagueZoneName; next: number } {
  const [promote, relegate] = cf.t[tier]!;
  const zone = zoneOf(rank, n, cf.sz, { promote, relegate });
  return { zone, next: tier + NEW_TIER_STEP[zone] };
}

/** What the event script needs of each league this event may move (see lua/lib/50-leagues.lua). */
export function eventLeagues(leagues: Iterable<LeagueConfig>, metricId: string, now: number): string {
  let out = '';
  for (const l of leagues) {
    if (l.status !== 'active') continue;
    if (l.rankBy === 'metric' && l.metricId !== metricId) continue;
    const r = runAt(l, now);
    const p = runParams(l, r);
    const item = `{"k":${l.slot},"i":"${l.id}","r":${r},"rb":"${l.rankBy[0]}","ms":${l.metricSlot ?? -1},"ss":${l.systemSlot ?? -1},"cf":${JSON.stringify(paramsArg(p))}}`;
    out = out ? `${out},${item}` : item;
  }
  return out ? `[${out}]` : '';
}

/** One league change as the script reports it (pr -1: not ranked before). */
export interface ScriptLeague {
  k: number;
  i: string;
  r: number;
  t: number;
  c: number;
  rk: number;
  pr: number;
  n: number;
  v: number;
  sc: string;
  z: 'p' | 'r' | 's';
}

const ZONES: Record<string, LeagueZoneName> = { p: 'promotion', r: 'relegation', s: 'stay' };

export interface LeagueLookup {
  leaguesBySlot: Map<number, LeagueConfig>;
}

/** The tier at index `i` of a run, clamped (a run may have fewer tiers than an earlier one). */
export function tierAt(p: RunParams, i: number): Tier & { index: number } {
  const index = Math.max(0, Math.min(p.tiers.length - 1, i));
  return { ...p.tiers[index]!, index };
}

/** One league change as the event response (and a live update) shows it. */
export function leagueChangeJson(l: LeagueConfig, c: ScriptLeague): EventLeague {
  return {
    tier: tierAt(runParams(l, c.r), c.t).key,
    cohortId: cohortId(c.r, c.t, c.c),
    rank: c.rk,
    previousRank: c.pr > 0 ? c.pr : null,
    value: c.v,
    zone: ZONES[c.z] ?? 'stay',
  };
}

/** The event response's `leagues` map: each league the event moved, by key. */
export function leaguesResponse(cfg: LeagueLookup, raw: string | undefined): Record<string, EventLeague> {
  const out: Record<string, EventLeague> = {};
  if (!raw || raw === '[]') return out;
  for (const c of JSON.parse(raw) as ScriptLeague[]) {
    const l = cfg.leaguesBySlot.get(c.k);
    if (l) out[l.key] = leagueChangeJson(l, c);
  }
  return out;
}

/** A closed run's tie counter is at least this (CLOSED_TICK_VALUE in the Lua prelude). */
export const CLOSED_TICK = '4503599627370496';

/** The user-hash field of a user's place in a league ('run,tier,cohort,value'; see lua/lib/50-leagues.lua). */
export const leagueField = (slot: number) => `${LEAGUE_PREFIX}${slot}`;

// Fields of a league's Redis hashes (src/redis/keys.ts), which the scripts name through the Lua prelude.
/** The league's state: the last run whose outcomes are applied to the settled tiers. */
export const LEAGUE_APPLIED_FIELD = 'd';
/** A run's tie counter (at least CLOSED_TICK once closed) and its parameters (StoredParams). */
export const RUN_TICK_FIELD = 't';
export const RUN_PARAMS_FIELD = 'cf';
/** Per tier, the cohorts a run opened, and the oldest that may have room. */
export const RUN_OPENED_PREFIX = 'n';
export const RUN_ROOM_PREFIX = 'f';
export const runOpenedField = (tier: number) => `${RUN_OPENED_PREFIX}${tier}`;
export function parsePlace(raw: string | null | undefined): { run: number; tier: number; no: number; value: number } | null {
  if (!raw) return null;
  const [run, tier, no, value] = raw.split(',');
  return { run: Number(run), tier: Number(tier), no: Number(no), value: Number(value) };
}
