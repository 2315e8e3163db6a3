import type { PoolClient } from 'pg';
import type { LeagueConfig, Tier } from '../domain/leagues';

// The leagues table (docs/leagues.md): the rows the Admin API reads and
// writes, inside the caller's config transaction. Tiers are stored as JSON.

/** A row: the columns named as the config's fields have their types; the others, in the columns' spelling. */
export interface LeagueRow extends Pick<LeagueConfig, 'id' | 'slot' | 'key' | 'name' | 'description' | 'status' | 'cadence' | 'tiers'> {
  rank_by: LeagueConfig['rankBy'];
  metric_id: string | null;
  points_system_id: string | null;
  week_start: LeagueConfig['weekStart'];
  time_zone: string;
  cohort_size: number;
  next_cohort_size: number | null;
  next_tiers: Tier[] | null;
  next_from_run: number | null;
  finalized_run: number;
  /** Cohorts opened per tier in the current run (filled from Redis by the reads). */
  cohorts?: number[];
}

export const LEAGUE_COLS = `id, slot, key, name, description, status, rank_by, metric_id, points_system_id, cadence, week_start, time_zone,
  cohort_size, tiers, next_cohort_size, next_tiers, next_from_run, finalized_run`;

/** A new league's columns: its config as it starts (no change pending), and the last run counted as finalized. */
export type NewLeague = Omit<LeagueConfig, 'metricSlot' | 'systemSlot' | 'next'> & { finalizedRun: number };

export async function insertLeague(c: PoolClient, tenantId: string, l: NewLeague, now: Date): Promise<LeagueRow> {
  const { rows } = await c.query<LeagueRow>(
    `INSERT INTO leagues (tenant_id, id, slot, key, name, description, status, rank_by, metric_id, points_system_id, cadence, week_start,
       time_zone, cohort_size, tiers, finalized_run, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17) RETURNING ${LEAGUE_COLS}`,
    [tenantId, l.id, l.slot, l.key, l.name, l.description, l.status, l.rankBy, l.metricId, l.systemId,
      l.cadence, l.weekStart, l.timeZone, l.cohortSize, JSON.stringify(l.tiers), l.finalizedRun, now],
  );
  return rows[0]!;
}

/** What a league update sets: the run parameters in force, and the change pending from a later run (null: none). */
export type LeagueUpdate = Pick<LeagueConfig, 'name' | 'description' | 'status' | 'cohortSize' | 'tiers' | 'next'>;

export async function updateLeagueRow(c: PoolClient, tenantId: string, id: string, u: LeagueUpdate, now: Date): Promise<LeagueRow> {
  const { rows } = await c.query<LeagueRow>(
    `UPDATE leagues SET name = $3, description = $4, status = $5, cohort_size = $6, tiers = $7, next_cohort_size = $8, next_tiers = $9,
       next_from_run = $10, updated = $11 WHERE tenant_id = $1 AND id = $2 RETURNING ${LEAGUE_COLS}`,
    [tenantId, id, u.name, u.description, u.status, u.cohortSize, JSON.stringify(u.tiers),
      u.next?.cohortSize ?? null, u.next ? JSON.stringify(u.next.tiers) : null, u.next?.fromRun ?? null, now],
  );
  return rows[0]!;
}

/** The tables holding a league's runs and results (migrations/028-leagues.sql), by league_id. */
const LEAGUE_HISTORY_TABLES = ['league_entries', 'league_runs', 'league_results', 'league_tiers'] as const;

/** Delete every row the runs of deleted leagues left. */
export async function deleteLeagueHistory(c: PoolClient, tenantId: string, leagueIds: readonly string[]): Promise<void> {
  for (const table of LEAGUE_HISTORY_TABLES) await c.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND league_id = ANY($2::uuid[])`, [tenantId, leagueIds]);
}
