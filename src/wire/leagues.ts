import type { tags } from 'typia';
import type { IsoDate } from './app';

// Leagues on the wire (a Laurel extension; docs/leagues.md).

/** What /openapi.json says of every league operation. */
export const LEAGUES_ABOUT = 'A Laurel extension (not in Trophy): see docs/leagues.md.';

type Int = number & tags.Type<'int32'>;
type Uuid = string & tags.Format<'uuid'>;
type Name = string & tags.MinLength<1> & tags.MaxLength<255>;

export type Cadence = 'daily' | 'weekly' | 'monthly';
export type LeagueWeekStart = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';

/** One tier, lowest first in a league's list: how many of a full cohort move up and down at a run's end. */
export interface LeagueTier {
  /** Letters, digits, `_` and `-`, at most 100; unique within the league. */
  key: string & tags.MaxLength<100>;
  name: Name;
  /** 0 on the top tier. */
  promote: Int & tags.Minimum<0> & tags.Maximum<100>;
  /** 0 on the lowest tier. */
  relegate: Int & tags.Minimum<0> & tags.Maximum<100>;
}

interface LeagueFields {
  name: Name;
  description?: (string & tags.MaxLength<1000>) | null;
  rankBy: 'metric' | 'points';
  /** With rankBy `metric`: the metric whose value earned in a run is the score. */
  metricId?: Uuid;
  /** With rankBy `points`: the points system whose points awarded in a run are the score. */
  pointsSystemId?: Uuid;
  cadence: Cadence;
  /** First day of a weekly run (default monday). */
  weekStart?: LeagueWeekStart;
  /** IANA zone the run boundary is in (default: the tenant's default zone). */
  timeZone?: string & tags.MaxLength<100>;
  /** 2 to 100 (default 30). */
  cohortSize?: Int & tags.Minimum<2> & tags.Maximum<100>;
  /** 2 to 20 tiers, lowest first. */
  tiers: LeagueTier[] & tags.MinItems<2> & tags.MaxItems<20>;
  /** Default active. */
  status?: 'active' | 'inactive';
}

export interface CreateLeague extends LeagueFields {
  key: string;
}

/** Tiers and cohort size apply from the next run on; name, description and status at once. */
export interface PatchLeague {
  id: Uuid;
  name?: Name;
  description?: (string & tags.MaxLength<1000>) | null;
  status?: 'active' | 'inactive';
  cohortSize?: Int & tags.Minimum<2> & tags.Maximum<100>;
  tiers?: LeagueTier[] & tags.MinItems<2> & tags.MaxItems<20>;
}

export interface LeagueRun {
  start: IsoDate;
  end: IsoDate;
}

export interface AdminLeague {
  id: string;
  key: string;
  name: string;
  description?: string;
  rankBy: 'metric' | 'points';
  metricId?: string;
  pointsSystemId?: string;
  cadence: Cadence;
  weekStart: LeagueWeekStart;
  timeZone: string;
  cohortSize: Int;
  tiers: LeagueTier[];
  status: 'active' | 'inactive';
  /** The run in progress (`run`: its number, the first part of its cohort ids) and its cohorts per tier (lowest first). */
  currentRun: LeagueRun & { run: Int; cohorts: { tier: string; cohorts: Int }[] };
  /** A change waiting for the next run. */
  next?: { start: IsoDate; cohortSize: Int; tiers: LeagueTier[] };
}

// ---- application ----

export interface LeagueRanking {
  rank: Int;
  userId: string;
  userName: string | null;
  value: number;
}

export type LeagueZoneName = 'promotion' | 'relegation' | 'stay';
export type LeagueOutcome = 'promoted' | 'relegated' | 'stayed';

export interface LeagueHistoryEntry {
  start: IsoDate;
  end: IsoDate;
  cohortId: string;
  /** Tier keys: the one played in, and the one the outcome moved the user to. */
  tier: string;
  rank: Int;
  value: number;
  outcome: LeagueOutcome;
  newTier: string;
}

export interface UserLeague {
  key: string;
  name: string;
  run: LeagueRun;
  tier: { key: string; name: string; index: Int };
  /** Null until the user scores in this run. */
  cohort: { id: string; size: Int; rankings: LeagueRanking[] } | null;
  rank: Int | null;
  value: number | null;
  zone: LeagueZoneName;
  lastResult: LeagueHistoryEntry | null;
}

export interface LeagueHistoryQuery {
  /** Entries to answer, newest first (default 10). */
  limit?: Int & tags.Minimum<1> & tags.Maximum<100>;
}

export interface LeagueCohort {
  id: string;
  tier: { key: string; name: string; index: Int };
  run: LeagueRun;
  rankings: LeagueRanking[];
}

/** An event response's entry for a league the event moved. */
export interface EventLeague {
  /** The tier's key. */
  tier: string;
  cohortId: string;
  rank: Int;
  previousRank: Int | null;
  value: number;
  zone: LeagueZoneName;
}
