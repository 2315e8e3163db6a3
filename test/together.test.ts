import t, { Test } from 'tap';
import type { PoolClient } from 'pg';
import { createPool, together } from '../src/store/db';
import { copyRows, CopyRows } from '../src/store/copy';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

/** A connection (pipelined or not) in a transaction, with a temporary table t (k integer unique, v text). */
async function connection(t: Test, pipelined: boolean): Promise<PoolClient> {
  const db = createPool(DATABASE_URL, 'public', pipelined);
  t.teardown(() => db.end());
  const c = await db.connect();
  t.teardown(() => c.release());
  await c.query('CREATE TEMP TABLE t (k integer UNIQUE, v text)');
  return c;
}

const rows = (...r: [number, string][]) => {
  const out = new CopyRows(r.length);
  for (const [k, v] of r) out.field(k).field(v).end();
  return out;
};
const stored = async (c: PoolClient) => (await c.query<{ k: number; v: string }>('SELECT k, v FROM t ORDER BY k')).rows.map((x) => [x.k, x.v]);

t.test('steps sent together on a pipelined connection each get their own answers, copies among them', async (t) => {
  const c = await connection(t, true);
  await c.query('BEGIN');
  const [, inserted, read, twice] = await together(
    c,
    () => copyRows(c, 't', 'k, v', rows([1, 'a'], [2, 'b'])),
    () => c.query<{ k: number }>("INSERT INTO t VALUES (3, 'c') RETURNING k"),
    () => c.query<{ n: number }>('SELECT count(*)::int AS n FROM t'),
    // A step of two statements, the second sent once the first is answered.
    async () => {
      const { rows: [a] } = await c.query<{ x: number }>('SELECT 20 AS x');
      return (await c.query<{ y: number }>('SELECT $1::int * 2 AS y', [a!.x])).rows[0]!.y;
    },
  );
  t.same(inserted.rows, [{ k: 3 }]);
  t.same(read.rows, [{ n: 3 }], 'the read ran after the copy and the insert sent before it');
  t.equal(twice, 40);
  await c.query('COMMIT');
  t.same(await stored(c), [[1, 'a'], [2, 'b'], [3, 'c']]);
});

// Once a statement fails, Postgres refuses those behind it in the
// transaction (25P02): the caller must see the cause, and nothing a step
// sends may run after the caller has rolled back.
t.test('the statement that failed is the error thrown, and no step sends anything after it settles', async (t) => {
  const c = await connection(t, true);
  await c.query("INSERT INTO t VALUES (1, 'kept')");
  await c.query('BEGIN');
  let copied: Promise<void> | null = null;
  let lateStep = 'running';
  const err = await together(
    c,
    // A step whose second statement goes out once the copy below has failed
    // (as a step merging what it read sends its write later): refused in the
    // failed transaction, and answered before together settles, not run
    // after the caller's rollback. Its refusal is the first in step order.
    async () => {
      await c.query('SELECT 1');
      await copied!.catch(() => undefined);
      await c.query("INSERT INTO t VALUES (99, 'late')").finally(() => (lateStep = 'settled'));
    },
    () => (copied = copyRows(c, 't', 'k, v', rows([2, 'new'], [1, 'again']))),
    () => c.query("INSERT INTO t VALUES (3, 'behind')"),
  ).then(() => null, (e: { code?: string }) => e);
  t.equal(err?.code, '23505', 'the unique key that refused the copy, not the refusals behind it');
  t.equal(lateStep, 'settled', 'every step had settled, its last statement refused in the failed transaction');
  await c.query('ROLLBACK');
  t.same(await stored(c), [[1, 'kept']]);
  t.equal((await c.query('SELECT 42 AS x')).rows[0].x, 42, 'the connection answers in step');
});

t.test('steps run together on a pipelined connection, and one after another on any other', async (t) => {
  for (const pipelined of [true, false]) {
    const c = await connection(t, pipelined);
    const seen: string[] = [];
    const step = (name: string) => async () => {
      seen.push(`${name} sent`);
      await c.query('SELECT 1');
      seen.push(`${name} answered`);
    };
    await together(c, step('a'), step('b'));
    t.same(seen, pipelined ? ['a sent', 'b sent', 'a answered', 'b answered'] : ['a sent', 'a answered', 'b sent', 'b answered'], pipelined ? 'pipelined' : 'not pipelined');
  }
});
