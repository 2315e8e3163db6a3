import { loadConfig } from '../config';
import { createLogger } from '../observability/log';
import { createPool } from '../store/db';
import { migrate } from '../store/migrations';
import { loadSecretBox } from '../store/secrets';
import { resealSecrets } from '../store/sealed';

/**
 * `npm run secrets:rekey`: re-seal every stored credential under SECRETS_KEY.
 * Run it after setting the new key in SECRETS_KEY and the old one in
 * SECRETS_KEY_PREVIOUS (or after first setting SECRETS_KEY, when the key was
 * generated and kept in Postgres); then SECRETS_KEY_PREVIOUS can go. Safe to
 * run while servers are up (each table is re-sealed in one transaction) and to
 * run again.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.secretsKey) throw new Error('SECRETS_KEY is not set: set the new key there (and the old one in SECRETS_KEY_PREVIOUS)');
  const log = createLogger(config.logLevel);
  const db = createPool(config.databaseUrl, config.databaseSchema);
  try {
    await migrate(db, config.databaseSchema);
    const box = await loadSecretBox(db, config.secretsKey, config.secretsKeyPrevious, log);
    const changed = await resealSecrets(db, box, true);
    process.stdout.write(`re-sealed ${changed} stored credentials under the current SECRETS_KEY\n`);
  } finally {
    await db.end();
  }
}

main().catch((err) => {
  process.stderr.write(`laurel secrets:rekey failed: ${(err as Error).message}\n`);
  process.exit(1);
});
