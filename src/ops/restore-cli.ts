import { loadConfig } from '../config';
import { createLogger } from '../observability/log';
import { createPool } from '../store/db';
import { migrate } from '../store/migrations';
import { createRedis } from '../redis/client';
import { Keys } from '../redis/keys';
import { Engine } from '../engine';
import { Tenants } from '../store/tenants';
import { TenantConfigs } from '../store/tenant-config';
import { restore } from '../store/restore';
import { systemClock } from '../clock';

/**
 * `npm run restore`: rebuild Redis from Postgres now (a server does this by
 * itself when it starts against an empty Redis). Run it with the servers
 * stopped: it overwrites what Redis holds with what Postgres recorded.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const db = createPool(config.databaseUrl, config.databaseSchema);
  await migrate(db, config.databaseSchema);
  const redis = createRedis(config, log, 'laurel-restore');
  await redis.connect();
  const keys = new Keys(config.keyPrefix);
  const engine = new Engine(redis);
  await engine.load();
  const r = await restore({ db, redis, keys, tenants: new Tenants(db, systemClock), configs: new TenantConfigs(db, redis, engine, keys, log), log });
  await redis.set(keys.restored, new Date().toISOString());
  process.stdout.write(`restored ${r.users} users of ${r.tenants} tenants\n`);
  await redis.quit();
  await db.end();
}

main().catch((err) => {
  process.stderr.write(`laurel restore failed: ${(err as Error).message}\n`);
  process.exit(1);
});
