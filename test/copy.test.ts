import t, { Test } from 'tap';
import fc from 'fast-check';
import { Pool } from 'pg';
import { copyRows, CopyRows } from '../src/store/copy';

/** The fields of COPY's text format read back as Postgres reads them (null for \N). */
function readBack(text: string): (string | null)[][] {
  const unescape = (f: string) => (f === '\\N' ? null : f.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c));
  return text.split('\n').slice(0, -1).map((line) => line.split('\t').map(unescape));
}

t.test('every string comes back as written, whatever it holds', async (t) => {
  fc.assert(fc.property(fc.array(fc.array(fc.option(fc.string({ unit: 'binary' }), { nil: null }), { minLength: 1, maxLength: 5 }), { maxLength: 20 }), (rows) => {
    const out = new CopyRows(1);
    for (const r of rows) {
      for (const f of r) out.field(f);
      out.end();
    }
    t.same(readBack(out.bytes().toString('utf8')), rows);
  }), { numRuns: 300 });
});

t.test('a time is the UTC instant it was given, to the millisecond', async (t) => {
  // From 1970 to 2100, with the edges of days and years among them.
  const edges = [0, 86_399_999, 86_400_000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(2028, 1, 29, 12, 0, 0, 5)];
  fc.assert(fc.property(fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) })), (ms) => {
    const text = new CopyRows(1).time(ms).bytes().toString('ascii');
    t.match(text, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\+00$/);
    t.equal(Date.parse(text.replace(' ', 'T').replace('+00', 'Z')), ms);
  }), { numRuns: 500 });
});

t.test('ids, numbers and nulls are written as they are, rows and fields separated', async (t) => {
  const out = new CopyRows(1);
  out.word('0b9e2c1e-6a8f-4c55-9a55-61c3e8a4e2b0').field(12.5).word(null).end();
  out.field(-3).word('2026-11-27').field(null).end();
  t.equal(out.bytes().toString('ascii'), '0b9e2c1e-6a8f-4c55-9a55-61c3e8a4e2b0\t12.5\t\\N\n-3\t2026-11-27\t\\N\n');
});

t.test('rows larger than the first guess grow the buffer without losing any', async (t) => {
  const out = new CopyRows(1);
  const long = 'é'.repeat(5000);
  for (let i = 0; i < 3; i++) out.field(long).field(i).end();
  t.same(readBack(out.bytes().toString('utf8')), [0, 1, 2].map((i) => [long, String(i)]));
});

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

/** One connection with a temporary table t (k integer unique, v text), and rows for it. */
async function withTable(t: Test) {
  const db = new Pool({ connectionString: DATABASE_URL, max: 1 });
  t.teardown(() => db.end());
  const c = await db.connect();
  t.teardown(() => c.release());
  await c.query('CREATE TEMP TABLE t (k integer UNIQUE, v text)');
  const rows = (...r: [number, string | null][]) => {
    const out = new CopyRows(r.length);
    for (const [k, v] of r) out.field(k).field(v).end();
    return out;
  };
  const stored = async () => (await c.query<{ k: number; v: string | null }>('SELECT k, v FROM t ORDER BY k')).rows.map((x) => [x.k, x.v]);
  return { c, rows, stored };
}

t.test('copied rows are stored as sent, and the connection answers the next query', async (t) => {
  const { c, rows, stored } = await withTable(t);
  await copyRows(c, 't', 'k, v', rows([1, 'a\tb\\c'], [2, null], [3, 'é\n']));
  t.same(await stored(), [[1, 'a\tb\\c'], [2, null], [3, 'é\n']]);
  // Rows beyond what a socket takes at once are sent whole.
  const many = new CopyRows(1);
  for (let k = 10; k < 60_010; k++) many.field(k).field('x'.repeat(40)).end();
  await copyRows(c, 't', 'k, v', many);
  t.equal((await c.query('SELECT count(*)::int AS n FROM t')).rows[0].n, 60_003);
});

t.test('a copy a unique key refuses stores none of its rows, and the savepoint sent with it undoes it alone', async (t) => {
  const { c, rows, stored } = await withTable(t);
  await c.query('BEGIN');
  await c.query("INSERT INTO t VALUES (1, 'kept')");
  const err = await copyRows(c, 't', 'k, v', rows([2, 'new'], [1, 'again']), 'SAVEPOINT s').then(() => null, (e: { code?: string }) => e);
  t.equal(err?.code, '23505');
  await c.query('ROLLBACK TO SAVEPOINT s');
  t.same(await stored(), [[1, 'kept']]);
  await c.query('COMMIT');
  t.same(await stored(), [[1, 'kept']]);
});

// The rows follow the statement without waiting for Postgres's answer: when
// the copy never starts, Postgres must skip them and the connection go on.
t.test('a copy whose statement before it fails sends rows Postgres skips, and the connection stays in step', async (t) => {
  const { c, rows, stored } = await withTable(t);
  await c.query('BEGIN');
  await t.rejects(c.query('SELECT 1 / 0'));
  const big = new CopyRows(1);
  for (let k = 0; k < 50_000; k++) big.field(k).field('y'.repeat(40)).end();
  const err = await copyRows(c, 't', 'k, v', big, 'SAVEPOINT s').then(() => null, (e: { code?: string }) => e);
  t.equal(err?.code, '25P02', 'the transaction was aborted before the copy');
  await c.query('ROLLBACK');
  t.equal((await c.query('SELECT 42 AS x')).rows[0].x, 42);
  await copyRows(c, 't', 'k, v', rows([7, 'after']));
  t.same(await stored(), [[7, 'after']]);
});
