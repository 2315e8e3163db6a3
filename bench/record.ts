import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { freePort, heapSampler, ownRedis, postgresCpu, processCpu, sleep, StatementSampler } from './util';
import { runLoad } from './load';
import { seedConfig, seedUsers } from './seed';

/**
 * `npm run bench:record`: the durable record's cost alone. One Laurel server
 * (own schema and key prefix), the realistic configuration, BENCH_USERS
 * users (20,000) and BENCH_EVENTS events (100,000: the last load is sized
 * to end a little past it) of the bench's load, then, per event: the WAL
 * Postgres wrote, Postgres's CPU, and the bytes of the per-user tables
 * (tables and indexes, every partition). Point DATABASE_URL at a Postgres
 * of its own for exact WAL and CPU (both are counted for the whole server).
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

/** WAL of one relation file: its records (less page images) and its full-page images, bytes. */
type WalPart = { records: number; images: number };

/**
 * WAL written between two LSNs, per relation file (the first block a record
 * names) and, for the records that name none, per transaction (commits),
 * from pg_walinspect: exact for this schema's relations whatever else the
 * server writes meanwhile. Read a span at a time (a checkpoint may recycle
 * older segments).
 */
async function walSpan(db: Pool, from: string, to: string, byNode: Map<string, WalPart>, byXid: Map<string, number>): Promise<void> {
  const { rows } = await db.query<{ node: string | null; xid: string; records: string; images: string }>(
    `SELECT substring(block_ref from 'rel \\d+/\\d+/(\\d+)') AS node, CASE WHEN substring(block_ref from 'rel \\d+/\\d+/(\\d+)') IS NULL THEN xid::text ELSE '' END AS xid,
            sum(record_length - fpi_length)::text AS records, sum(fpi_length)::text AS images
     FROM pg_get_wal_records_info($1, $2) GROUP BY 1, 2`,
    [from, to],
  );
  for (const r of rows) {
    if (r.node === null) byXid.set(r.xid, (byXid.get(r.xid) ?? 0) + Number(r.records) + Number(r.images));
    else {
      const part = byNode.get(r.node) ?? { records: 0, images: 0 };
      part.records += Number(r.records);
      part.images += Number(r.images);
      byNode.set(r.node, part);
    }
  }
}

/** This schema's relation files: table (partitions under their parent, TOAST under its table) and whether an index. */
async function relationFiles(db: Pool, schema: string): Promise<Map<string, { table: string; index: boolean }>> {
  const { rows } = await db.query<{ node: string; table_name: string; index: boolean }>(
    `WITH t AS (
       SELECT c.oid, coalesce(p.relname, c.relname) AS table_name FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
       WHERE n.nspname = $1 AND c.relkind = 'r')
     SELECT pg_relation_filenode(t.oid)::text AS node, t.table_name, false AS index FROM t
     UNION ALL SELECT pg_relation_filenode(c.reltoastrelid)::text, t.table_name, false FROM t JOIN pg_class c ON c.oid = t.oid WHERE c.reltoastrelid <> 0
     UNION ALL SELECT pg_relation_filenode(x.indexrelid)::text, t.table_name, true FROM t JOIN pg_index x ON x.indrelid = t.oid
     UNION ALL SELECT pg_relation_filenode(x.indexrelid)::text, t.table_name, true FROM t JOIN pg_class c ON c.oid = t.oid JOIN pg_index x ON x.indrelid = c.reltoastrelid`,
    [schema],
  );
  return new Map(rows.filter((r) => r.node !== null).map((r) => [r.node, { table: r.table_name, index: r.index }]));
}

/** The transactions that wrote to this schema's relations, by xid (read with the spans). */
async function schemaXids(db: Pool, from: string, to: string, nodes: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ xid: string }>(
    `SELECT DISTINCT xid::text AS xid FROM pg_get_wal_records_info($1, $2)
     WHERE xid <> 0 AND substring(block_ref from 'rel \\d+/\\d+/(\\d+)') = ANY($3)`,
    [from, to, nodes],
  );
  return new Set(rows.map((r) => r.xid));
}

/**
 * CPU time (µs) of the Postgres backends serving Laurel (application_name
 * `app`), sampled: a backend's last figure is kept after it closes (up to a
 * second of its work may be missed then). Unlike the server's whole CPU,
 * other clients of a shared server do not count.
 */
class BackendCpu {
  private readonly last = new Map<number, number>();
  private readonly first = new Map<number, number>();
  private started = false;
  constructor(private readonly db: Pool, private readonly app: string) {}
  async sample(): Promise<void> {
    const { rows } = await this.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [this.app]);
    for (const { pid } of rows) {
      const us = processCpu(pid);
      if (Number.isNaN(us)) continue;
      // A backend opened after reset counts whole (its start included).
      if (!this.first.has(pid)) this.first.set(pid, this.started ? 0 : us);
      this.last.set(pid, us);
    }
  }
  /** CPU since `reset` (or since each backend was first seen). */
  total(): number {
    let us = 0;
    for (const [pid, v] of this.last) us += v - (this.first.get(pid) ?? v);
    return us;
  }
  reset(): void {
    this.started = true;
    this.first.clear();
    for (const [pid, v] of this.last) this.first.set(pid, v);
  }
}

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const schema = `record_${id}`;
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const port = await freePort();
  // A Redis of its own, gone with its 100,000 keys when the run ends (a shared
  // one kept them, and every later SCAN over it, tests' included, crawled).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-record-'));
  const redis = await ownRedis(dir);
  await redis.ready();
  // BENCH_LAUREL_MAIN: another build's main.js (the previous version, for a before/after on the same machine state).
  // The inspector lets the run sample the server's allocations (heapSampler).
  const inspectPort = await freePort();
  const proc = spawn(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, process.env.BENCH_LAUREL_MAIN || 'dist/src/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL, DATABASE_SCHEMA: schema,
      REDIS_URL: redis.url, REDIS_KEY_PREFIX: `record-${id}:`, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn', PGAPPNAME: `laurel-${schema}` },
  });
  const url = `http://127.0.0.1:${port}`;
  // One connection kept open throughout (its CPU is left out of the server's below).
  const db = new Pool({ connectionString: DATABASE_URL, max: 1, idleTimeoutMillis: 0 });
  const lag = async () => ((await (await fetch(`${url}/readyz`)).json()) as { flusherLag: { entries: number } }).flusherLag.entries;
  const count = async () => Number((await db.query(`SELECT count(*) AS n FROM "${schema}".events`)).rows[0].n);
  const wal = async () => BigInt((await db.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS b`)).rows[0].b);
  try {
    await until(async () => (await fetch(`${url}/healthz`)).ok, 60_000);
    await seedConfig(url, adminKey);
    await seedUsers(url, adminKey, USERS);
    await until(async () => (await lag()) === 0, 120_000);
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const backends = new BackendCpu(db, `laurel-${schema}`);
    await backends.sample();
    // Every page's first change after a checkpoint is logged whole: start each run right after one.
    await db.query('CHECKPOINT');
    const s0 = await sizes(db, schema);
    // pg_walinspect reads up to what is flushed (a commit flushes its own records).
    const lsn = async () => (await db.query('SELECT pg_current_wal_flush_lsn()::text AS l')).rows[0].l as string;
    // The bench's own backend reads the WAL back (inspect, below) inside the
    // span: seconds of CPU, about 37 µs an event. Its time is left out.
    const self = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const [w0, c0] = [await wal(), (await postgresCpu(db)) - processCpu(self)];
    backends.reset();
    const lsn0 = await lsn();
    const byNode = new Map<string, WalPart>();
    const byXid = new Map<string, number>();
    const files = await relationFiles(db, schema);
    const xids = new Set<string>();
    let from = lsn0;
    const inspect = async () => {
      const to = await lsn();
      await walSpan(db, from, to, byNode, byXid);
      for (const x of await schemaXids(db, from, to, [...files.keys()])) xids.add(x);
      from = to;
    };
    const heap = await heapSampler(inspectPort);
    await heap.start();
    if (process.env.BENCH_CPU_PROFILE) await heap.startCpu();
    const node0 = processCpu(proc.pid!);
    const sampler = setInterval(() => void backends.sample().catch(() => undefined), 1000);
    // BENCH_PG_STATEMENTS=1: Laurel's backends' time by statement (costs the server a query every few ms, so off by default).
    const statements = process.env.BENCH_PG_STATEMENTS ? new StatementSampler(new Pool({ connectionString: DATABASE_URL, max: 1 }), `laurel-${schema}`) : null;
    statements?.start();
    // Loads of 10 s, the last one sized by the rate so far to end near EVENTS:
    // per-event figures fall as a run spreads each user's rows over more
    // events (a run of 124,000 read 30 B of WAL less than one of 104,000).
    const started = performance.now();
    for (let done = 0; done < EVENTS; ) {
      const rate = done / ((performance.now() - started) / 1000);
      const seconds = done ? Math.max(1, Math.min(10, Math.ceil((EVENTS - done) / rate))) : 10;
      await runLoad('events', { method: 'POST', path: '/v1/metrics/{metric}/event', body: 'event', apiKey: adminKey, idempotent: true },
        { url, seconds, connections: 32, users: USERS, tag: id });
      await inspect();
      done = await count();
      process.stderr.write(`record: ${done} events\n`);
    }
    await until(async () => (await lag()) === 0, 300_000);
    await statements?.stop();
    const node1 = processCpu(proc.pid!);
    const { bytes: allocated, profile } = await heap.stop();
    // BENCH_HEAP_PROFILE=file: the allocation profile, for DevTools' Memory tab.
    if (process.env.BENCH_HEAP_PROFILE) writeFileSync(process.env.BENCH_HEAP_PROFILE, JSON.stringify(profile));
    // BENCH_CPU_PROFILE=file: where the process spent its CPU, for DevTools' Performance tab.
    if (process.env.BENCH_CPU_PROFILE) writeFileSync(process.env.BENCH_CPU_PROFILE, JSON.stringify(await heap.stopCpu()));
    heap.close();
    await backends.sample();
    clearInterval(sampler);
    const n = await count();
    const [w1, c1] = [await wal(), (await postgresCpu(db)) - processCpu(self)];
    await inspect();
    process.stderr.write(`record: WAL from ${lsn0} to ${from}\n`);
    const s1 = await sizes(db, schema);
    const walOf = new Map<string, { heap: number; index: number; images: number }>();
    for (const [node, part] of byNode) {
      const f = files.get(node);
      if (!f) continue;
      const w = walOf.get(f.table) ?? { heap: 0, index: 0, images: 0 };
      if (f.index) w.index += part.records;
      else w.heap += part.records;
      w.images += part.images;
      walOf.set(f.table, w);
    }
    let commits = 0;
    for (const [x, b] of byXid) if (xids.has(x)) commits += b;
    const mine = [...walOf.values()].reduce((a, w) => a + w.heap + w.index + w.images, 0) + commits;
    const noImages = [...walOf.values()].reduce((a, w) => a + w.heap + w.index, 0) + commits;
    const per = (b: number) => Math.round(b / n);
    const tables = [...new Set([...s1.keys(), ...walOf.keys()])]
      .filter((t) => (walOf.has(t) || (s1.get(t) ?? 0) - (s0.get(t) ?? 0) > 0))
      .sort((a, b) => (s1.get(b) ?? 0) - (s1.get(a) ?? 0));
    const total = (s: Map<string, number>) => tables.reduce((a, t) => a + (s.get(t) ?? 0), 0);
    const pad = (x: string | number, w: number) => String(x).padStart(w);
    const lines = [
      `${n} events over ${USERS} users`,
      `WAL per event: ${per(Number(w1 - w0))} B (whole server); this schema's: ${per(mine)} B, of which full-page images ${per(mine - noImages)} B; without them ${per(noImages)} B`,
      `Postgres CPU per event: ${per(c1 - c0)} µs (whole server, less this bench's reading of the WAL); Laurel's backends: ${per(backends.total())} µs`,
      `Laurel's process (HTTP, scripts and flusher), per event: ${per(node1 - node0)} µs of CPU, ${(allocated / n / 1024).toFixed(1)} KB allocated (V8 heap sampling)`,
      `table+index bytes per event (tables that grew, all rows): ${per(total(s1))} B; grown during the load: ${per(total(s1) - total(s0))} B`,
      `${'table'.padEnd(26)}${pad('bytes/ev', 9)}${pad('WAL/ev', 8)}${pad('heap', 7)}${pad('index', 7)}${pad('images', 7)}`,
      ...tables.map((t) => {
        const w = walOf.get(t) ?? { heap: 0, index: 0, images: 0 };
        return `${t.padEnd(26)}${pad(per(s1.get(t) ?? 0), 9)}${pad(per(w.heap + w.index + w.images), 8)}${pad(per(w.heap), 7)}${pad(per(w.index), 7)}${pad(per(w.images), 7)}`;
      }),
      `${'commits and other'.padEnd(26)}${pad('', 9)}${pad(per(commits), 8)}`,
    ];
    if (statements) lines.push(...statements.report(n, backends.total()));
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    if (!process.env.BENCH_KEEP) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    else process.stderr.write(`record: schema ${schema} kept\n`);
    await db.end();
    redis.redis.disconnect();
    redis.proc.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
