import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { DEFAULT_TENANT_ID, loadMigrations, migrate, MIGRATIONS_DIR } from '../src/store/migrations';
import { dumpSchema } from './helpers/schema-dump';
import { startServer } from './helpers/harness';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';
const SCHEMA_FILE = path.join(MIGRATIONS_DIR, 'schema.sql');
const HEADER = `-- What the steps in this folder make, as pg_dump --schema-only prints it (the schema named laurel).
-- Checked by test/migrations.test.ts; after adding a step, LAUREL_WRITE_SCHEMA=1 npx tap dist/test/migrations.test.js rewrites it.

`;

/**
 * sha256 (first 16 hex digits) of the 26 SQL strings of the array the steps were
 * kept in before they became files (src/store/migrations.ts at a23c39c, each
 * without its first newline and last indent). A database of that version recorded
 * steps 1–26 by number: they must stay these texts.
 */
const ARRAY_VERSION = [
  '42e2160a0c27df9e', '042868c93c9518dd', 'b8fef8a5f2564b3d', 'c946fd68c609cf98', 'e1ccf86cd3e4cf89', '7e37b5f7f0650ad2',
  '487fa9e3a146729c', '5656a43006267c4f', '2ca9bb5d1581fb29', '1991740b93ea612e', '77363c75058ed931', '921e346a081f46fe',
  '9cd34e1338a35f6d', '7bd89af258239522', '6b6767810e99495d', 'd20e464b3752daa3', '4f7191c639794637', 'ffde890a609e2efb',
  '357e68d08b84fcd3', '6e7eea57842bf2f7', '2f323e4f14ff3001', 'c8814bceab5e885b', 'e9cb17a41798e115', '7e24607a625fd0ba',
  'c64de240dc8e994e', '5da695674e46a057',
];

/** A new schema and a pool on it; `drop` removes both. */
function freshSchema(prefix: string) {
  const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
  const db = new Pool({ connectionString: DATABASE_URL, max: 1, options: `-c search_path=${schema}` });
  const drop = async () => {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  };
  return { schema, db, drop };
}

t.test('a migrated schema is migrations/schema.sql', async (t) => {
  const { schema, db, drop } = freshSchema('test_mig');
  t.teardown(drop);
  t.equal(await migrate(db, schema), loadMigrations().length);
  const dumped = HEADER + dumpSchema(DATABASE_URL, schema);
  if (process.env.LAUREL_WRITE_SCHEMA) writeFileSync(SCHEMA_FILE, dumped);
  t.equal(dumped, readFileSync(SCHEMA_FILE, 'utf8'), 'migrations/schema.sql is out of date (see its first lines)');
});

t.test('a database written by the array version is brought forward without loss', async (t) => {
  const steps = loadMigrations();
  const digest = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);
  t.same(steps.slice(0, ARRAY_VERSION.length).map((m) => digest(m.sql)), ARRAY_VERSION, 'the first files are the array, unchanged');

  // What the array version left: its table (numbers only) and its 26 steps, with some data.
  const { schema, db, drop } = freshSchema('test_mig_up');
  let closeServer = async () => {};
  t.teardown(async () => {
    await closeServer();
    await drop();
  });
  await db.query(`CREATE SCHEMA "${schema}"`);
  await db.query('CREATE TABLE laurel_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const m of steps.slice(0, ARRAY_VERSION.length)) {
    await db.query(m.sql);
    await db.query('INSERT INTO laurel_migrations (version) VALUES ($1)', [m.version]);
  }
  await db.query(
    `INSERT INTO metrics (id, tenant_id, slot, key, name, unit_type, units, created, updated) VALUES ($1, $2, 1, 'steps', 'Steps', 'number', '', now(), now())`,
    ['6f0c2d3e-1111-4222-8333-444455556666', DEFAULT_TENANT_ID],
  );
  await db.query('UPDATE tenants SET seq = 1, config_version = 2');
  const before = (await db.query('SELECT applied_at FROM laurel_migrations ORDER BY version')).rows;

  t.equal(await migrate(db, schema), steps.length - ARRAY_VERSION.length, 'only the steps added since are applied');
  const { rows } = await db.query<{ version: number; name: string; applied_at: Date }>('SELECT version, name, applied_at FROM laurel_migrations ORDER BY version');
  t.same(rows.map((r) => r.name), steps.map((m) => m.name), 'each step recorded by name');
  t.same(rows.slice(0, before.length).map((r) => r.applied_at), before.map((r) => r.applied_at), 'the old records kept as they were');
  t.equal(HEADER + dumpSchema(DATABASE_URL, schema), readFileSync(SCHEMA_FILE, 'utf8'), 'the same schema as a new database');
  t.equal(await migrate(db, schema), 0, 'a second start applies nothing');

  // The new code serves what the old one wrote.
  const s = await startServer(t, { DATABASE_SCHEMA: schema });
  closeServer = () => s.app.close();
  t.match((await s.call('GET', '/admin/v1/metrics')).body, [{ key: 'steps', name: 'Steps' }]);
});

t.test('a step number applied under another name stops the start', async (t) => {
  const { schema, db, drop } = freshSchema('test_mig_name');
  t.teardown(drop);
  await migrate(db, schema);
  await db.query(`UPDATE laurel_migrations SET name = 'other-branch' WHERE version = 3`);
  await t.rejects(migrate(db, schema), /migration 3 was applied as "other-branch"/);
});

t.test('a gap or a misnamed file in migrations/ is refused, not skipped', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'laurel-mig-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, '001-first.sql'), 'SELECT 1;');
  writeFileSync(path.join(dir, 'schema.sql'), '-- not a step');
  writeFileSync(path.join(dir, 'README.md'), 'not a step');
  t.same(loadMigrations(dir).map((m) => [m.version, m.name]), [[1, 'first']]);
  writeFileSync(path.join(dir, '003-third.sql'), 'SELECT 3;');
  t.throws(() => loadMigrations(dir), /003-third\.sql: expected 002-name\.sql/);
  rmSync(path.join(dir, '003-third.sql'));
  writeFileSync(path.join(dir, '2-second.sql'), 'SELECT 2;');
  t.throws(() => loadMigrations(dir), /2-second\.sql/);
});
