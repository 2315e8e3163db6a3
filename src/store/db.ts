import { Client, Pool } from 'pg';
import type { PoolClient } from 'pg';

// numeric and bigint come back as strings by default; counts and versions fit a double.
import { types } from 'pg';
types.setTypeParser(types.builtins.INT8, (v) => Number(v));

/**
 * A pool of connections to the schema. `pipelined`: its connections send a
 * query without waiting for the answer to the one before (pg's pipeline
 * mode), so statements issued together travel together (see together).
 */
export function createPool(url: string, schema: string, pipelined = false): Pool {
  return new Pool({
    connectionString: url,
    max: 10,
    pipeline: pipelined,
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 10_000,
  });
}

/** Create the database named in the URL when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  const probe = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err; // anything but "database does not exist"
  } finally {
    await probe.end().catch(() => undefined);
  }
  u.pathname = '/postgres';
  const admin = new Client({ connectionString: u.toString(), connectionTimeoutMillis: 3000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // created meanwhile by another process
  } finally {
    await admin.end();
  }
}

/** A client checked out for a transaction (see tx). */
export type { PoolClient };

const ignore = () => undefined;

/**
 * Run `fn` in a transaction; roll back on any error. While checked out, a
 * client whose connection drops emits 'error' outside any query: listen, or
 * the process dies; the failing query rejects on its own.
 */
export async function tx<T>(db: Pool, fn: (c: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const c = await db.connect();
  c.on('error', ignore);
  let broken = false;
  try {
    await c.query(begin);
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    broken = true;
    await c.query('ROLLBACK').catch(ignore);
    throw err;
  } finally {
    c.off('error', ignore);
    c.release(broken);
  }
}

/** Whether a client's connection is pipelined (createPool). */
const isPipelined = (c: PoolClient): boolean => (c as unknown as Client).pipeline === true;

/** Steps answering T[0], T[1], …: each a function sending statements (see together). */
export type Steps<T extends unknown[]> = { [K in keyof T]: () => Promise<T[K]> };

/** Run steps one after another, each starting once the one before has settled. */
export async function inTurn<T extends unknown[]>(...steps: Steps<T>): Promise<T> {
  const out: unknown[] = [];
  for (const step of steps) out.push(await step());
  return out as T;
}

/** Postgres's SQLSTATE for a statement sent after another failed in the same transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/**
 * Run steps that each send statements on `c` (independent of each other's
 * results), and wait for all. On a pipelined connection they start at once:
 * their first statements go out in one write and each step's later ones as
 * soon as it has what it needs, so n steps cost about as many round trips as
 * the longest, not their sum. Postgres still runs the statements in the order
 * sent, and every step settles before this does (no statement is left to
 * run after the caller goes on to commit or roll back). Once one fails, the
 * transaction refuses the statements behind it; the error thrown is the one
 * that failed it. On any other connection the steps run in turn.
 */
export async function together<T extends unknown[]>(c: PoolClient, ...steps: Steps<T>): Promise<T> {
  if (!isPipelined(c)) return inTurn<T>(...steps);
  const stream = (c as unknown as Client).connection.stream;
  stream.cork();
  let started: Promise<unknown>[];
  try {
    started = steps.map((step) => step());
  } finally {
    stream.uncork();
  }
  const settled = await Promise.allSettled(started);
  const failed = settled.filter((x): x is PromiseRejectedResult => x.status === 'rejected').map((x) => x.reason as { code?: string });
  if (failed.length) throw failed.find((e) => e.code !== IN_FAILED_TRANSACTION) ?? failed[0];
  return settled.map((x) => (x as PromiseFulfilledResult<unknown>).value) as T;
}

/**
 * Run `fn` in a savepoint of the transaction `c`: its writes stay when `keep`
 * says so of its result and are undone otherwise, and the transaction goes
 * on either way. A thrown error is left to the transaction's rollback.
 */
export async function inSavepoint<T>(c: PoolClient, fn: () => Promise<T>, keep: (out: T) => boolean): Promise<T> {
  await c.query('SAVEPOINT item');
  const out = await fn();
  await c.query(keep(out) ? 'RELEASE SAVEPOINT item' : 'ROLLBACK TO SAVEPOINT item');
  return out;
}

/**
 * A batch's rows (`rows`, a FROM item aliased `x`) each with the ctid (`tid`)
 * of the row of `table` that `match` finds for it, looked up one key at a
 * time through the table's key index, for an `UPDATE table … FROM
 * ${byKey(…)} x WHERE table.ctid = x.tid`, or the ctid left out to read
 * `cols` (`SELECT … FROM ${byKey(…)} x`). A plain join or `= ANY` lets the
 * planner read every row of the tenant instead when it lacks statistics
 * (autovacuum off, or a table grown since its last ANALYZE): a cost that
 * grows with the tenant, not the batch. `OFFSET 0` keeps the lookup a
 * subquery of its own. A row updated by another transaction between the
 * lookup and the update is skipped (its new version has another ctid), so
 * callers update only where a skip is harmless: under a lock, or with an
 * upsert of what was not updated. `orNull` keeps the rows that find none,
 * with nulls for `cols`.
 */
export const byKey = (rows: string, table: string, match: string, cols = 'ctid AS tid', orNull = false) =>
  `(SELECT x.*, t.* FROM ${rows} ${orNull ? 'LEFT' : 'CROSS'} JOIN LATERAL (SELECT ${cols} FROM ${table} WHERE ${match} OFFSET 0) t${orNull ? ' ON true' : ''})`;

/**
 * JSON texts (null: '') as one parameter, for `jsonTextArray($n)` in SQL.
 * pg sends a text[] parameter as an array literal, escaping every quote
 * of every element in a copy of it; JSON holds control characters only
 * escaped, so the record separator cannot occur in one and joins them.
 */
export const joinJsonTexts = (texts: (string | null)[]) => texts.map((t) => t ?? '').join('\x1e');
export const jsonTextArray = (param: string) => `string_to_array(${param}, E'\\x1e', '')`;
