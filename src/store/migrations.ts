import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { tx } from './db';

/** The id of the tenant used when a request names none (made by migrations/001-core.sql). */
export const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000000';

/** Tables without a foreign key to tenants (migrations 009 and 025): a tenant's removal empties them itself. */
export const TENANT_ROW_TABLES = ['events', 'points_awards', 'leaderboard_events', 'achievement_completions', 'streak_periods', 'board_entries', 'event_days', 'points_days',
  'league_entries', 'league_runs', 'league_results', 'league_tiers'] as const;

/** The schema's steps, `NNN-name.sql`, shipped beside dist/ as lua/ is (see migrations/README.md). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../../migrations');

const NOT_STEPS = new Set(['schema.sql']);

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The steps in order. Numbers run 1, 2, 3… without a gap, so a misnamed file stops the start instead of being skipped. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql') && !NOT_STEPS.has(f)).sort();
  return files.map((file, i) => {
    const m = /^(\d{3})-([a-z0-9-]+)\.sql$/.exec(file);
    if (!m || Number(m[1]) !== i + 1) throw new Error(`migrations/${file}: expected ${String(i + 1).padStart(3, '0')}-name.sql`);
    return { version: i + 1, name: m[2]!, sql: readFileSync(path.join(dir, file), 'utf8') };
  });
}

/**
 * Apply the steps not applied yet (up to version `upTo`: a test of an upgrade
 * starts on an older schema), all in one transaction under an advisory lock,
 * so concurrent starts of several processes are safe. Each is recorded in
 * laurel_migrations by number and name. A database written
 * when the steps were an array in this file recorded numbers only: those are
 * the first files, so nothing is run again and their names are filled in.
 */
export async function migrate(db: Pool, schema: string, upTo?: number): Promise<number> {
  const steps = loadMigrations();
  const last = upTo ?? steps.length;
  return tx(db, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-migrate:' || $1))`, [schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await c.query(`SET LOCAL search_path TO "${schema}"`);
    await c.query(`CREATE TABLE IF NOT EXISTS laurel_migrations (
      version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), name text)`);
    await c.query('ALTER TABLE laurel_migrations ADD COLUMN IF NOT EXISTS name text');
    const { rows } = await c.query<{ version: number; name: string | null }>('SELECT version, name FROM laurel_migrations ORDER BY version');
    for (const row of rows) {
      const step = steps[row.version - 1];
      // A newer Laurel's steps are left alone, as they always were.
      if (!step) continue;
      if (row.name === null) await c.query('UPDATE laurel_migrations SET name = $2 WHERE version = $1', [row.version, step.name]);
      else if (row.name !== step.name) {
        throw new Error(`migration ${row.version} was applied as "${row.name}" but migrations/ has "${step.name}" there: numbers must never be reused`);
      }
    }
    const applied = rows.at(-1)?.version ?? 0;
    for (const step of steps.slice(applied, last)) {
      await c.query(step.sql);
      await c.query('INSERT INTO laurel_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
    }
    return Math.max(0, last - applied);
  });
}
