import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Logger } from '../log';
import { generateKey } from '../auth/api-keys';
import { tx } from './db';

/**
 * Without ADMIN_API_KEY, the very first start creates an admin key and prints
 * it once (stdout, not the log). Later starts find one and print nothing.
 */
export async function ensureAdminKey(db: Pool, config: Config, clock: Clock, log: Logger): Promise<void> {
  if (config.adminApiKey) return;
  const key = await tx(db, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-admin-key'))`);
    const { rowCount } = await c.query(`SELECT 1 FROM api_keys WHERE kind = 'admin' LIMIT 1`);
    if (rowCount) return null;
    const k = generateKey('admin');
    await c.query(`INSERT INTO api_keys (id, prefix, secret_hash, kind, created) VALUES ($1, $2, $3, 'admin', $4)`, [
      randomUUID(), k.prefix, k.secretHash, new Date(clock.now()),
    ]);
    return k.key;
  });
  if (key) {
    log.info('created the first admin API key; it is printed once below and cannot be shown again');
    process.stdout.write(`\n  Admin API key (store it now; it will not be shown again):\n  ${key}\n\n`);
  }
}

/**
 * Warn when Postgres's autovacuum is off: its statistics are what steer the
 * planner to a user's own rows (a table never analyzed may be scanned by
 * another index across every user; seen in the bench at 13 ms a query).
 */
export async function warnWithoutAutovacuum(db: Pool, log: Logger): Promise<void> {
  const { rows } = await db.query<{ autovacuum: string }>('SHOW autovacuum');
  if (rows[0]?.autovacuum === 'off') {
    log.warn('Postgres autovacuum is off: tables are never analyzed, and some reads may get slow plans; turn it on (or ANALYZE regularly)');
  }
}
