import type { PoolClient } from 'pg';
import type { ScriptLeague } from '../domain/leagues';

// The leagues' part of the durable record (docs/leagues.md): each
// participant's cohort and packed score in a run not yet finalized, kept
// as upserts versioned by stream id (a late batch never wins). A rebuild of
// Redis reads them back (store/restore.ts).

interface EntryRow { l: string; r: number; u: string; t: number; c: number; s: string; ver: string }

/** A batch's league entries: the latest per (league, run, user). */
export class LeagueEntries {
  private readonly rows = new Map<string, EntryRow>();

  add(changes: ScriptLeague[], userId: string, ver: string): void {
    for (const c of changes) this.rows.set(`${c.i}\0${c.r}\0${userId}`, { l: c.i, r: c.r, u: userId, t: c.t, c: c.c, s: c.sc, ver });
  }

  get size(): number {
    return this.rows.size;
  }

  /** In key order, so concurrent batches lock rows in one order. */
  list(): EntryRow[] {
    return [...this.rows.keys()].sort().map((k) => this.rows.get(k)!);
  }
}

export async function writeLeagueEntries(c: PoolClient, tenantId: string, entries: LeagueEntries): Promise<void> {
  if (!entries.size) return;
  await c.query(
    `INSERT INTO league_entries (tenant_id, league_id, run, user_id, tier, cohort, score, ver)
     SELECT $1, x.l, x.r, x.u, x.t, x.c, x.s::double precision, x.ver
     FROM jsonb_to_recordset($2::jsonb) AS x(l uuid, r integer, u text, t integer, c integer, s text, ver numeric)
     ON CONFLICT (tenant_id, league_id, run, user_id) DO UPDATE SET tier = excluded.tier, cohort = excluded.cohort, score = excluded.score, ver = excluded.ver
     WHERE league_entries.ver < excluded.ver`,
    [tenantId, JSON.stringify(entries.list())],
  );
}
