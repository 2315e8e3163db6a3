import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import { systemClock } from '../src/clock';
import { createLogger } from '../src/observability/log';
import { DEFAULT_TENANT_ID } from '../src/store/migrations';
import type { StreamEntry } from '../src/pipeline/flush-batch';
import { recordFields } from '../src/engine/change-record';
import { RECORD_FIELD, RECORD_KIND } from '../src/domain/change-record';
import { FLUSH_BATCH } from '../src/pipeline/flusher';
import { seedConfig, seedUsers, sendEvents } from './seed';
import { ownHeapSampler } from './util';

/**
 * `npm run bench:flush-alloc`: the flusher's Node work per record, alone.
 * Real change records (the realistic configuration, BENCH_USERS users,
 * BENCH_EVENTS events from an HTTP-only server, so nothing flushes them)
 * are collected into batches and turned into query parameters (serialised
 * as pg would) and COPY data against a client that answers without
 * Postgres: bytes allocated and CPU per record, each build in a child
 * process of its own (node with --expose-gc and a young generation large
 * enough that no collection happens while it counts allocation).
 * BENCH_FLUSH_BATCH_MODULE names another build's flush-batch.js to compare.
 */
const USERS = Number(process.env.BENCH_USERS ?? 2000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 4000);
const ROUNDS = 20;

type FlushBatch = typeof import('../src/pipeline/flush-batch');

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_SCHEMA: `alloc_${id}`, REDIS_KEY_PREFIX: `alloc-${id}:`, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn' });
  const app = await startApp(config, systemClock, createLogger('warn'), { http: true, background: false });
  const url = `http://127.0.0.1:${app.port}`;
  try {
    await seedConfig(url, adminKey);
    await seedUsers(url, adminKey, USERS);
    await sendEvents(url, adminKey, { users: USERS, events: EVENTS, tag: id, zones: true });
    const stream = app.ctx.keys.tenant(0).stream;
    const entries = (await app.ctx.redis.xrange(stream, '-', '+')) as StreamEntry[];
    const events = entries.filter(([, f]) => recordFields(f)[RECORD_FIELD.kind] === RECORD_KIND.event);
    const batches: StreamEntry[][] = [];
    for (let i = 0; i < events.length; i += FLUSH_BATCH) batches.push(events.slice(i, i + FLUSH_BATCH));

    // Each build is measured in a process of its own holding nothing but
    // the records: one measured beside the seeding's heap (or after another
    // build's rounds) paid for collections of that heap, two to three times
    // the CPU in the rounds they fell in.
    const file = join(tmpdir(), `flush-alloc-${id}.json`);
    writeFileSync(file, JSON.stringify(batches));
    try {
      const modules: [string, string][] = [['this build', join(__dirname, '../src/pipeline/flush-batch')]];
      if (process.env.BENCH_FLUSH_BATCH_MODULE) modules.push([process.env.BENCH_FLUSH_BATCH_MODULE, process.env.BENCH_FLUSH_BATCH_MODULE]);
      // Allocation with a young generation no round fills (so none collects
      // while it counts); CPU with node's default heap, as a server runs it
      // (with a young generation that large, rounds read two to three times
      // the CPU). BENCH_CHILD_ARGS: more node options for both (such as
      // --cpu-prof --cpu-prof-dir=DIR).
      const run = (args: string[], path: string[]) =>
        execFileSync(process.execPath, [...args, ...(process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean), __filename, 'measure', ...path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      for (const [name, path] of modules) {
        const alloc = run(['--expose-gc', '--max-semi-space-size=512'], ['alloc', file, path]);
        const cpu = run([], ['cpu', file, path]);
        process.stdout.write(`${name}: ${alloc}, ${cpu}\n`);
      }
    } finally {
      rmSync(file, { force: true });
    }
  } finally {
    await app.ctx.db.query(`DROP SCHEMA IF EXISTS "alloc_${id}" CASCADE`).catch(() => undefined);
    const keys = await app.ctx.redis.keys(`alloc-${id}:*`);
    if (keys.length) await app.ctx.redis.del(...keys);
    await app.close();
  }
}

/** A COPY … FROM STDIN (store/copy.ts's query object, or pg-copy-streams' in builds before it) as a client would send it. */
const isCopy = (q: unknown): q is CopyIn => typeof q === 'object' && q !== null && 'handleCopyInResponse' in q;
type CopyIn = { submit(conn: unknown): void; handleCopyInResponse(conn: unknown): void; handleReadyForQuery(): void };

/**
 * Take a COPY as Postgres would, keeping nothing: its data framed and
 * written to a socket that drops it, and the end answered once it comes
 * (CopyDone, a 5-byte message starting with 'c').
 */
function copyIn(q: CopyIn): CopyIn {
  const conn = {
    stream: { cork: () => undefined, uncork: () => undefined, write: (b: Buffer) => (b.length === 5 && b[0] === 0x63 && setImmediate(() => q.handleReadyForQuery()), true), once: () => undefined },
    query: () => undefined,
    sendCopyFail: () => undefined,
  };
  q.submit(conn);
  setImmediate(() => q.handleCopyInResponse(conn));
  return q;
}

/** One build's allocation or CPU over the batches in a file (in a child process main starts). */
async function measure(mode: 'alloc' | 'cpu', file: string, path: string): Promise<void> {
  const batches = JSON.parse(readFileSync(file, 'utf8')) as StreamEntry[][];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fb = require(path) as FlushBatch;
  // user_state as a Postgres would hold it: what the last round wrote, read back (merged in Node).
  const states = new Map<string, { state: string; recent: string | null }>();
  const round = async (list: StreamEntry[][]) => {
    for (const entries of list) {
      const batch = new fb.Batch(entries);
      const client = {
        query: (q: string | { text: string; values: unknown[] }, v?: unknown[]) => (isCopy(q) ? copyIn(q) : answer(q, v)),
      };
      const answer = async (q: string | { text: string; values: unknown[] }, v?: unknown[]) => {
        const text = typeof q === 'string' ? q : q.text;
        for (const x of (typeof q === 'string' ? v : q.values) ?? []) prepareValue(x);
        // The flush mark (store/flush-marks.ts): every event of the batch newer.
        if (text.includes('FROM flush_marks')) return { rows: [{ ver: '0' }] };
        // Builds before events were copied in inserted them, and read back the ids stored.
        if (text.includes('INSERT INTO events')) return { rows: batch.events.map((e) => ({ id: e.id })) };
        const values = (typeof q === 'string' ? v : q.values) as (string | null)[][] | undefined;
        // The award kinds' lookup (store/award-kinds.ts): every kind stored already.
        if (text.includes('JOIN award_kinds')) return { rows: (JSON.parse(values![1] as unknown as string) as { k: string }[]).map((x, i) => ({ k: x.k, id: String(i + 1) })) };
        // A statement without parameters (a savepoint) changes no row here.
        if (!values) return { rows: [] };
        // The read (an update names the table in its FROM too).
        // (A row's tid is its user id here.)
        if (text.startsWith('SELECT') && text.includes('FROM user_state')) return { rows: values[1]!.filter((u) => states.has(u!)).map((u) => ({ user_id: u, ...states.get(u!), tid: u })) };
        // An insert or update: texts as an array, or joined (db.ts joinJsonTexts). An
        // update passes state null where it keeps it, and recent whole or, where the
        // SQL says so, the groups to put in front of it. Builds since 8408d19 update
        // by the tids read, earlier ones by user id.
        const texts = (v: unknown) => (typeof v === 'string' ? v.split('\x1e').map((t) => t || null) : (v as (string | null)[] | undefined));
        const front = text.includes('left(x.r, -1)');
        const write = (users: (string | null)[], s: (string | null)[], r: (string | null)[] | undefined) => users.forEach((u, i) => {
          const old = states.get(u!);
          const recent = s[i] !== null || !r?.[i] ? null : front && old?.recent ? `${r[i]!.slice(0, -1)},${old.recent.slice(1)}` : r[i]!;
          states.set(u!, { state: s[i] ?? old!.state, recent });
        });
        if (text.includes('user_state.ctid')) write(values[0]!, texts(values[1])!, texts(values[2]));
        else if (text.includes('user_state') && values[2] !== undefined) write(values[1]!, texts(values[2])!, texts(values[3]));
        return { rows: [] };
      };
      await fb.writeBatch(client as never, DEFAULT_TENANT_ID, batch, true);
    }
  };
  // The first half of the batches makes the users' rows; each measured round writes the
  // second half over them as they were then (a round over rows already holding its
  // records would find nothing new to write).
  const warm = batches.slice(0, batches.length >> 1);
  const measured = batches.slice(warm.length);
  const records = measured.reduce((n, b) => n + b.length, 0);
  await round(warm);
  const before = new Map(states);
  const reset = () => {
    states.clear();
    for (const [u, row] of before) states.set(u, row);
  };
  for (let i = 0; i < 5; i++) {
    reset();
    await round(measured);
  }
  if (mode === 'alloc') {
    // The growth of the heap over one round with no collection in it (the least of several tries).
    const gc = (globalThis as { gc?: () => void }).gc!;
    let gcs = 0;
    new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });
    let heap = Infinity;
    for (let i = 0; i < 5; i++) {
      reset();
      gc();
      await new Promise((r) => setTimeout(r, 20));
      const gcs0 = gcs;
      const heap0 = process.memoryUsage().heapUsed;
      await round(measured);
      const grown = process.memoryUsage().heapUsed - heap0;
      await new Promise((r) => setTimeout(r, 20));
      if (gcs === gcs0) heap = Math.min(heap, grown);
    }
    // BENCH_HEAP_PROFILE=file: a sampling heap profile of five more rounds, for DevTools.
    if (process.env.BENCH_HEAP_PROFILE) {
      const sampler = await ownHeapSampler();
      await sampler.start();
      for (let i = 0; i < 5; i++) {
        reset();
        await round(measured);
      }
      writeFileSync(process.env.BENCH_HEAP_PROFILE, JSON.stringify((await sampler.stop()).profile));
      sampler.close();
    }
    process.stdout.write(`${records} event records in ${measured.length} batches (after ${warm.length}); per record ` +
      `${heap === Infinity ? 'allocation not measured (a collection ran every time)' : `${Math.round(heap / records)} B allocated`}`);
    return;
  }
  // CPU, the collector's threads included (the process holds nothing else for them to collect).
  let cpu = 0;
  for (let i = 0; i < ROUNDS; i++) {
    reset();
    const cpu0 = process.cpuUsage();
    await round(measured);
    const used = process.cpuUsage(cpu0);
    cpu += used.user + used.system;
  }
  process.stdout.write(`${(cpu / (records * ROUNDS)).toFixed(1)} µs CPU`);
}

(process.argv[2] === 'measure' ? measure(process.argv[3] as 'alloc' | 'cpu', process.argv[4]!, process.argv[5]!) : main()).catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
