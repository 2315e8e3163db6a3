import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Logger } from '../observability/log';
import { ENV_PREFIX_MARK, environmentPrefix, generateKey } from '../auth/api-keys';
import { tx } from './db';

/**
 * Without ADMIN_API_KEY, a start that finds no active admin key creates one
 * and prints it once (stdout, not the log): the very first start, or the way
 * back in when every stored key was revoked. With ADMIN_API_KEY, that key is
 * listed as a row of source `environment` (no usable hash: the variable is
 * checked on its own, see Authenticator); without it, the row goes.
 */
export async function ensureAdminKey(db: Pool, config: Config, clock: Clock, log: Logger): Promise<void> {
  const key = await tx(db, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-admin-key'))`);
    if (config.adminApiKey) {
      // Stored apart from real prefixes (the variable may hold a key also stored, e.g. the printed one).
      const prefix = `${ENV_PREFIX_MARK}${environmentPrefix(config.adminApiKey)}`;
      const { rowCount } = await c.query(`UPDATE api_keys SET prefix = $1 WHERE source = 'environment'`, [prefix]);
      if (!rowCount) {
        await c.query(
          `INSERT INTO api_keys (id, prefix, secret_hash, kind, created, name, source) VALUES ($1, $2, '', 'admin', $3, 'ADMIN_API_KEY', 'environment')`,
          [randomUUID(), prefix, new Date(clock.now())],
        );
      }
      return null;
    }
    await c.query(`DELETE FROM api_keys WHERE source = 'environment'`);
    const { rowCount } = await c.query(`SELECT 1 FROM api_keys WHERE kind = 'admin' AND status = 'active' LIMIT 1`);
    if (rowCount) return null;
    const k = generateKey('admin');
    await c.query(`INSERT INTO api_keys (id, prefix, secret_hash, kind, created, name, source) VALUES ($1, $2, $3, 'admin', $4, 'Bootstrap key', 'bootstrap')`, [
      randomUUID(), k.prefix, k.secretHash, new Date(clock.now()),
    ]);
    return k.key;
  });
  if (key) {
    log.info('created an admin API key; it is printed once below and cannot be shown again');
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
