import type { Pool } from 'pg';
import type { LeagueOutcome } from '../wire/leagues';

// Reads of the leagues' final results (league_results, written when a run is
// finalized: scheduler/leagues.ts), for the application's reads.

/** One of a user's finished runs in a league. */
export interface LeagueResult {
  run: number;
  cohortId: string;
  /** Tier keys: the one played in, and the one the outcome moved the user to. */
  tierKey: string;
  rank: number;
  value: number;
  outcome: LeagueOutcome;
  newTierKey: string;
}

/** A user's results in a league, latest run first, at most `limit`. */
export async function leagueHistory(db: Pool, tenantId: string, leagueId: string, userId: string, limit: number): Promise<LeagueResult[]> {
  const { rows } = await db.query<{ run: number; cohort: string; tier_key: string; rank: number; value: string; outcome: LeagueOutcome; new_tier_key: string }>(
    `SELECT run, cohort, tier_key, rank, value, outcome, new_tier_key FROM league_results
     WHERE tenant_id = $1 AND league_id = $2 AND user_id = $3 ORDER BY run DESC LIMIT $4`,
    [tenantId, leagueId, userId, limit],
  );
  return rows.map((r) => ({
    run: r.run, cohortId: r.cohort, tierKey: r.tier_key, rank: r.rank, value: Number(r.value), outcome: r.outcome, newTierKey: r.new_tier_key,
  }));
}

/** A finished cohort's final rankings, by rank (empty when it has none). */
export async function cohortResults(
  db: Pool, tenantId: string, leagueId: string, run: number, cohortId: string,
): Promise<{ userId: string; rank: number; value: number }[]> {
  const { rows } = await db.query<{ user_id: string; rank: number; value: string }>(
    'SELECT user_id, rank, value FROM league_results WHERE tenant_id = $1 AND league_id = $2 AND run = $3 AND cohort = $4 ORDER BY rank',
    [tenantId, leagueId, run, cohortId],
  );
  return rows.map((r) => ({ userId: r.user_id, rank: r.rank, value: Number(r.value) }));
}
