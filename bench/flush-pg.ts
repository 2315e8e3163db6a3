import { randomBytes } from 'node:crypto';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import { systemClock } from '../src/clock';
import { createLogger } from '../src/observability/log';
import type { Pool } from 'pg';
import { createPool } from '../src/store/db';
import { DEFAULT_TENANT_ID } from '../src/store/migrations';
import type { StreamEntry } from '../src/pipeline/flush-batch';
import { FLUSH_BATCH } from '../src/pipeline/flusher';
import { seedConfig, seedUsers, sendEvents } from './seed';
import { processCpu, StatementSampler } from './util';

/**
 * `npm run bench:flush-pg`: what a flush costs Postgres, per record, with
 * nothing else running. Real change records (the realistic configuration,
 * BENCH_USERS users and BENCH_EVENTS events of the bench's load, from an
 * HTTP-only server, so nothing flushes them) are written in stream order,
 * in batches as the flusher reads them, through a flusher's own
 * transaction code, over emptied tables each round. Per record: the
 * backend's CPU (from /proc), the wall time, the WAL (the whole server's:
 * give it a Postgres with nothing else to do) and the bytes the tables
 * hold. Rounds alternate between this build and BENCH_FLUSHER_MODULE
 * (another build's dist/src/pipeline/flusher.js), so both meet the same
 * machine state; `npm run bench:record` measures the same under load.
 */
const USERS = Number(process.env.BENCH_USERS ?? 20_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Every table a flush writes. */
const WRITTEN = ['events', 'user_state', 'users', 'board_entries', 'leaderboard_events', 'streak_periods', 'achievement_completions', 'points_awards', 'flushed_operations', 'flush_marks'];

type FlusherModule = typeof import('../src/pipeline/flusher');
/** The transaction a flusher writes one batch in: private, but each build's own code is what is measured. */
type Writes = { write(t: { id: string }, entries: StreamEntry[], firstTry: boolean): Promise<void> };

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const schema = `bench_${id}`;
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `bench-${id}:`, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn' });
  const log = createLogger('warn');
  const app = await startApp(config, systemClock, log, { http: true, background: false });
  const url = `http://127.0.0.1:${app.port}`;
  // A connection per build (each prepares its own statements): one backend, whose CPU /proc tells.
  const pools: Pool[] = [];
  const onePool = (name: string, pipelined = false) => {
    const db = createPool(config.databaseUrl, schema, pipelined);
    db.options.max = 1;
    db.options.application_name = name;
    pools.push(db);
    return db;
  };
  try {
    await seedConfig(url, adminKey);
    await seedUsers(url, adminKey, USERS);
    await sendEvents(url, adminKey, { users: USERS, events: EVENTS, tag: id, zones: false });
    const entries = (await app.ctx.redis.xrange(app.ctx.keys.tenant(0).stream, '-', '+')) as StreamEntry[];
    const batches: StreamEntry[][] = [];
    for (let i = 0; i < entries.length; i += FLUSH_BATCH) batches.push(entries.slice(i, i + FLUSH_BATCH));

    const builds: [string, FlusherModule][] = [['this build', await import('../src/pipeline/flusher')]];
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (process.env.BENCH_FLUSHER_MODULE) builds.push([process.env.BENCH_FLUSHER_MODULE, require(process.env.BENCH_FLUSHER_MODULE) as FlusherModule]);
    const figures = new Map<string, { cpu: number[]; node: number[]; wall: number[]; wal: number[]; bytes: number[] }>(builds.map(([name]) => [name, { cpu: [], node: [], wall: [], wal: [], bytes: [] }]));
    // Tables and indexes, partitions included.
    const bytes = async () => Number((await app.ctx.db.query<{ b: string }>(
      `SELECT sum(pg_total_relation_size(c.oid))::text AS b FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
       WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND coalesce(p.relname, c.relname) = ANY($2)`, [schema, WRITTEN])).rows[0]!.b);
    const lsn = async () => BigInt((await app.ctx.db.query<{ b: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS b`)).rows[0]!.b);
    const tenant = { id: DEFAULT_TENANT_ID };
    // Pipelined connections, as the app gives its flushers (app.ts); a build
    // compared from before they were (whose copies pg's pipeline mode refuses)
    // gets plain ones unless BENCH_FLUSHER_PIPELINED=1.
    const dbs = builds.map((_, i) => onePool(`flush-pg-${id}-${i}`, i === 0 || process.env.BENCH_FLUSHER_PIPELINED === '1'));
    // BENCH_PG_STATEMENTS=1: each build's backend time by statement (a query every few ms beside it).
    const samplers = process.env.BENCH_PG_STATEMENTS ? builds.map((_, i) => new StatementSampler(onePool(`flush-pg-sampler-${i}`), `flush-pg-${id}-${i}`)) : [];
    for (const s of samplers) s.start();
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [name, mod]] of builds.entries()) {
        const db = dbs[i]!;
        await db.query(`TRUNCATE ${WRITTEN.join(', ')}`);
        // BENCH_SQL: statements run over the emptied tables before each round (a storage setting to try).
        if (process.env.BENCH_SQL) await db.query(process.env.BENCH_SQL);
        const flusher = new mod.Flusher(db, app.ctx.redis, app.ctx.keys, null as never, log) as unknown as Writes;
        const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // Every round starts right after a checkpoint, so each logs the same page images.
        await db.query('CHECKPOINT');
        const cpu0 = processCpu(pid);
        const wal0 = await lsn();
        const t0 = performance.now();
        const node0 = process.cpuUsage();
        for (const b of batches) await flusher.write(tenant, b, true);
        const node = process.cpuUsage(node0);
        const f = figures.get(name)!;
        f.node.push((node.user + node.system) / entries.length);
        f.wall.push(((performance.now() - t0) * 1000) / entries.length);
        f.cpu.push((processCpu(pid) - cpu0) / entries.length);
        f.wal.push(Number((await lsn()) - wal0) / entries.length);
        f.bytes.push((await bytes()) / entries.length);
      }
    }
    for (const s of samplers) await s.stop();
    const list = (xs: number[]) => xs.map((x) => x.toFixed(1)).join('; ');
    process.stdout.write(`${entries.length} records (${USERS} users created, ${EVENTS} events) in batches of ${FLUSH_BATCH}, ${ROUNDS} rounds each, alternating\n`);
    for (const [i, [name, f]] of [...figures].entries()) {
      process.stdout.write(`${name}: Postgres backend CPU per record ${list(f.cpu)} µs; this process's (the flusher's Node side: its SQL, pg's protocol, the socket) ${list(f.node)} µs; wall ${list(f.wall)} µs; WAL (the whole server's) ${list(f.wal)} B; table and index bytes ${list(f.bytes)} B\n`);
      const cpu = f.cpu.reduce((a, b) => a + b, 0) * entries.length;
      if (samplers[i]) process.stdout.write(`${samplers[i]!.report(entries.length * ROUNDS, cpu, 'record').join('\n')}\n`);
    }
  } finally {
    for (const db of pools) await db.end().catch(() => undefined); // a sampler ends its own
    await app.ctx.db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    const keys = await app.ctx.redis.keys(`bench-${id}:*`);
    if (keys.length) await app.ctx.redis.del(...keys);
    await app.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
