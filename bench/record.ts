import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Pool } from 'pg';
import { freePort, postgresCpu, sleep } from './util';
import { runLoad } from './load';
import { seedConfig, seedUsers } from './seed';

/**
 * `npm run bench:record`: the durable record's cost alone. One Laurel server
 * (own schema and key prefix), the realistic configuration, BENCH_USERS
 * users (20,000) and at least BENCH_EVENTS events (100,000) of the bench's
 * load, then, per event: the WAL Postgres wrote, Postgres's CPU, and the
 * bytes of the per-user tables (tables and indexes, every partition). Point
 * DATABASE_URL at a Postgres of its own for exact WAL and CPU (both are
 * counted for the whole server).
 */
const USERS = Number(process.env.BENCH_USERS ?? 20_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const ROOT = path.resolve(__dirname, '../..');
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

async function until(fn: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(200);
  }
}

/** Bytes of every table of the schema (partitions counted under their parent), tables and indexes. */
async function sizes(db: Pool, schema: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ name: string; bytes: string }>(
    `SELECT coalesce(p.relname, c.relname) AS name, sum(pg_total_relation_size(c.oid))::text AS bytes
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
     WHERE n.nspname = $1 AND c.relkind = 'r' GROUP BY 1`,
    [schema],
  );
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const schema = `record_${id}`;
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const port = await freePort();
  // BENCH_LAUREL_MAIN: another build's main.js (the previous version, for a before/after on the same machine state).
  const proc = spawn(process.execPath, [process.env.BENCH_LAUREL_MAIN ?? 'dist/src/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL, DATABASE_SCHEMA: schema,
      REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `record-${id}:`, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn' },
  });
  const url = `http://127.0.0.1:${port}`;
  const db = new Pool({ connectionString: DATABASE_URL, max: 1 });
  const lag = async () => ((await (await fetch(`${url}/readyz`)).json()) as { flusherLag: { entries: number } }).flusherLag.entries;
  const count = async () => Number((await db.query(`SELECT count(*) AS n FROM "${schema}".events`)).rows[0].n);
  const wal = async () => BigInt((await db.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS b`)).rows[0].b);
  try {
    await until(async () => (await fetch(`${url}/healthz`)).ok, 60_000);
    await seedConfig(url, adminKey);
    await seedUsers(url, adminKey, USERS);
    await until(async () => (await lag()) === 0, 120_000);
    await db.query('CHECKPOINT');
    const s0 = await sizes(db, schema);
    const [w0, c0] = [await wal(), await postgresCpu(db)];
    const lsn = async () => (await db.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l as string;
    const lsn0 = await lsn();
    while ((await count()) < EVENTS) {
      await runLoad('events', { method: 'POST', path: '/v1/metrics/{metric}/event', body: 'event', apiKey: adminKey, idempotent: true },
        { url, seconds: 10, connections: 32, users: USERS, tag: id });
      process.stderr.write(`record: ${await count()} events\n`);
    }
    await until(async () => (await lag()) === 0, 300_000);
    const n = await count();
    const [w1, c1] = [await wal(), await postgresCpu(db)];
    process.stderr.write(`record: WAL from ${lsn0} to ${await lsn()} (pg_waldump -s/-e breaks it down by relation)\n`);
    const s1 = await sizes(db, schema);
    const tables = ['events', 'points_awards', 'leaderboard_events', 'user_state', 'users', 'board_entries', 'streak_periods', 'achievement_completions', 'flushed_operations'];
    const total = (s: Map<string, number>) => tables.reduce((a, t) => a + (s.get(t) ?? 0), 0);
    const lines = [
      `${n} events over ${USERS} users`,
      `WAL per event: ${Math.round(Number(w1 - w0) / n)} B`,
      `Postgres CPU per event: ${Math.round((c1 - c0) / n)} µs`,
      `table+index bytes per event (per-user tables, all rows): ${Math.round(total(s1) / n)} B; grown during the load: ${Math.round((total(s1) - total(s0)) / n)} B`,
      ...tables.map((t) => `  ${t}: ${Math.round((s1.get(t) ?? 0) / n)} B/event (${s1.get(t) ?? 0} B)`),
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    if (!process.env.BENCH_KEEP) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    else process.stderr.write(`record: schema ${schema} kept\n`);
    await db.end();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
