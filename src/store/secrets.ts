import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Logger } from '../observability/log';
import { parseSecretsKey, SecretBox } from '../domain/secret-box';

/**
 * The instance's secret box. With `SECRETS_KEY` set, it seals under that key
 * (and `SECRETS_KEY_PREVIOUS`, when set, still opens what the old key sealed).
 * Unset, a key is generated once and kept in Postgres beside the data, so every
 * process shares it; a warning says so, since a key kept with the data it
 * protects guards only against leaks of single columns, not of the database.
 */
export async function loadSecretBox(db: Pool, configured: string | undefined, previous: string | undefined, log: Logger): Promise<SecretBox> {
  if (configured) {
    // A key generated before SECRETS_KEY was set still opens what it sealed (until `npm run secrets:rekey`).
    const generated = await db.query<{ key: Buffer }>('SELECT key FROM secret_key WHERE id = 1');
    return new SecretBox([
      parseSecretsKey(configured), ...(previous ? [parseSecretsKey(previous, 'SECRETS_KEY_PREVIOUS')] : []), ...generated.rows.map((r) => r.key),
    ]);
  }
  const made = await db.query('INSERT INTO secret_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [randomBytes(32)]);
  const { rows } = await db.query<{ key: Buffer }>('SELECT key FROM secret_key WHERE id = 1');
  if (made.rowCount) {
    log.info('SECRETS_KEY is unset: stored credentials are encrypted under a key generated now and kept in Postgres (table secret_key); set SECRETS_KEY to keep the key apart from the data');
  }
  return new SecretBox([rows[0]!.key, ...(previous ? [parseSecretsKey(previous, 'SECRETS_KEY_PREVIOUS')] : [])]);
}
