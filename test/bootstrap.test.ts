import t from 'tap';
import { createPool } from '../src/store/db';
import { migrate } from '../src/store/migrations';
import { ensureAdminKey, warnWithoutAutovacuum } from '../src/store/bootstrap';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/observability/log';
import { systemClock } from '../src/clock';
import { schemaPool, startServer } from './helpers/harness';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

t.test('migrations are idempotent and the first admin key is printed once', async (t) => {
  const { schema, db } = schemaPool(t, 'test_boot');
  t.ok((await migrate(db, schema)) > 0);
  t.equal(await migrate(db, schema), 0, 'a second run applies nothing');

  const config = loadConfig({ DATABASE_URL, DATABASE_SCHEMA: schema });
  const printed: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => (printed.push(String(chunk)), true)) as typeof process.stdout.write;
  try {
    await ensureAdminKey(db, config, systemClock, createLogger('silent'));
    await ensureAdminKey(db, config, systemClock, createLogger('silent'));
  } finally {
    process.stdout.write = write;
  }
  const keys = printed.join('').match(/admin_[A-Za-z0-9]+\.[A-Za-z0-9]+/g) ?? [];
  t.equal(keys.length, 1, 'printed exactly once across two starts');
  const { rows } = await db.query(`SELECT secret_hash FROM api_keys WHERE kind = 'admin'`);
  t.equal(rows.length, 1);
  t.notMatch(rows[0].secret_hash, keys[0]!.split('.')[1]!, 'only the hash is stored');

  // The printed key works against a server on that database.
  const s = await startServer(t, { DATABASE_SCHEMA: schema, ADMIN_API_KEY: '' });
  t.equal((await s.call('GET', '/admin/v1/metrics', { key: keys[0]! })).status, 200);
});

t.test('a Postgres without autovacuum is reported at start, one with it is not', async (t) => {
  const db = createPool(DATABASE_URL, 'public');
  t.teardown(() => db.end());
  const warned: string[] = [];
  const log = { ...createLogger('silent'), warn: (msg: string) => void warned.push(msg) };
  await warnWithoutAutovacuum(db, log);
  const off = (await db.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum === 'off';
  t.equal(warned.length, off ? 1 : 0);
  if (off) t.match(warned[0], /autovacuum is off/);
});
