import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import net from 'node:net';
import Redis from 'ioredis';
import { Client, type Pool } from 'pg';
import WebSocket from 'ws';
import { type Config, loadConfig } from '../src/config';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    // A port is free only until its taker binds it: the same one handed out
    // twice (seen: Laurel's and its Redis's) makes the second fail to start.
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}
const handedOut = new Set<number>();

/**
 * A redis-server of the bench's own on a free port (no persistence, its files
 * in `dir`), `under` a command such as valgrind if given, and a client to it;
 * `ready()` resolves once it answers. The caller stops both.
 */
export async function ownRedis(dir: string, under: string[] = []) {
  const port = await freePort();
  const [cmd, ...args] = [...under, 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const proc = spawn(cmd!, args, { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const redis = new Redis(url, { retryStrategy: () => 50 });
  redis.on('error', () => undefined);
  const ready = async () => {
    for (let i = 0; (await redis.ping().catch(() => null)) !== 'PONG'; i++) if (i > 300) throw new Error('redis did not start');
  };
  return { port, url, proc, redis, ready };
}

/**
 * The config of an in-process bench server: a Redis key prefix and a Postgres
 * schema of its own (`bench-<id>:`, `bench_<id>`), an admin key made up now,
 * warnings only; `env` adds to it.
 */
export function benchConfig(id: string, env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({
    ...process.env, PORT: '0', HOST: '127.0.0.1', REDIS_KEY_PREFIX: `bench-${id}:`, DATABASE_SCHEMA: `bench_${id}`,
    ADMIN_API_KEY: `admin_bench.${randomBytes(16).toString('hex')}`, LOG_LEVEL: 'warn', ...env,
  });
}

/** Drop what a bench wrote to Postgres: its schemas, over a connection of its own. */
export async function dropSchemas(databaseUrl: string, ...schemas: string[]): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
}

/** A process's /proc/<pid>/stat fields after the command name (index 0 is the state), or null. */
function statOf(pid: number | string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return null; // gone, or no /proc
  }
}
const TICK_US = 1e6 / 100; // USER_HZ

/** CPU time (µs) a process has used so far, from /proc (NaN without it, or once it is gone). */
export function processCpu(pid: number): number {
  const f = statOf(pid);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_US : NaN;
}

/**
 * CPU time (µs) of a process and its children so far: its own, its finished
 * children's, and each live child's (a supervisor's workers, a postmaster's
 * backends). NaN without /proc.
 */
export function processTreeCpu(pid: number | string): number {
  const own = statOf(pid);
  if (!own) return NaN;
  let us = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * TICK_US;
  for (const child of readdirSync('/proc')) {
    if (!/^\d+$/.test(child)) continue;
    const f = statOf(child);
    if (f && f[1] === String(pid)) us += (Number(f[11]) + Number(f[12])) * TICK_US;
  }
  return us;
}

/**
 * CPU time (µs) of the Postgres server so far, every process of it (autovacuum
 * workers and closed backends included). NaN without /proc.
 */
export async function postgresCpu(db: Pool): Promise<number> {
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const postmaster = statOf(rows[0]!.pid)?.[1]; // the parent of a backend
  return postmaster ? processTreeCpu(postmaster) : NaN;
}

/**
 * The machine's CPU time so far (USER_HZ ticks, all CPUs) and how much of it
 * the host took for others (steal), from /proc/stat: on a shared virtual
 * machine, a run with much stolen time is not comparable with a quiet one.
 */
export function machineCpu(): { total: number; steal: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7]! };
  } catch {
    return { total: NaN, steal: NaN };
  }
}

/** One inspector protocol call: a method, its parameters, its result. */
type InspectorCall = <T>(method: string, params?: object) => Promise<T>;

/**
 * V8's sampling heap profiler (and CPU profiler) over the inspector
 * protocol. Objects the garbage collector took are kept in the profile, so
 * the sum is what the process allocated in between (an estimate: one
 * sample per `interval` bytes on average), not what it still holds.
 */
async function profilers(call: InspectorCall, close: () => void, interval = 32_768) {
  type Node = { selfSize: number; children: Node[] };
  const sum = (n: Node): number => n.children.reduce((a, c) => a + sum(c), n.selfSize);
  await call('HeapProfiler.enable');
  return {
    start: () => call('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
    /** Bytes allocated since `start`, and the profile (Chrome's `.heapprofile` format). */
    stop: async () => {
      const { profile } = await call<{ profile: { head: Node } }>('HeapProfiler.stopSampling');
      return { bytes: sum(profile.head), profile };
    },
    /** V8's CPU profiler over the same span (Profiler.start / stop): the profile in Chrome's `.cpuprofile` format. */
    startCpu: async () => {
      await call('Profiler.enable');
      await call('Profiler.start');
    },
    stopCpu: async () => (await call<{ profile: unknown }>('Profiler.stop')).profile,
    close,
  };
}

/** The profilers of another Node process, started with `--inspect=127.0.0.1:<port>`. */
export async function heapSampler(inspectPort: number) {
  const list = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(list[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 0;
  const waiting = new Map<number, (r: { result?: unknown; error?: { message: string } }) => void>();
  socket.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg);
  });
  const call: InspectorCall = async <T>(method: string, params: object = {}): Promise<T> => {
    const id = ++next;
    const reply = await new Promise<{ result?: unknown; error?: { message: string } }>((resolve) => {
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
    waiting.delete(id);
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result as T;
  };
  return profilers(call, () => socket.close());
}

/** The profilers of this process (node:inspector). */
export async function ownHeapSampler() {
  const session = new Session();
  session.connect();
  const call: InspectorCall = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
  return profilers(call, () => session.disconnect());
}

/**
 * Where the Postgres backends of one application_name spend their time, by
 * statement (BENCH_PG_STATEMENTS=1 in bench:record and bench:flush-pg):
 * pg_stat_activity sampled every few milliseconds from a connection of its
 * own (so not counted with theirs). A sample of a backend running a statement with
 * no wait event is on CPU; the rest are waits (a lock, the WAL flush of a
 * commit, reading the client). Statements are named by their text's start.
 */
export class StatementSampler {
  private readonly samples = new Map<string, number>();
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private elapsed = 0;
  private rounds = 0;
  constructor(private readonly db: Pool, private readonly app: string) {}
  start(): void {
    this.running = true;
    this.done = (async () => {
      let t = performance.now();
      while (this.running) {
        const { rows } = await this.db.query<{ q: string; w: string | null }>(
          `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS q, wait_event_type || ':' || wait_event AS w
           FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`,
          [this.app],
        );
        for (const r of rows) {
          const k = `${r.w ?? 'CPU'}\t${r.q}`;
          this.samples.set(k, (this.samples.get(k) ?? 0) + 1);
        }
        await sleep(4);
        const now = performance.now();
        this.elapsed += now - t;
        this.rounds++;
        t = now;
      }
    })();
  }
  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    await this.db.end();
  }
  /** Lines: per statement, µs of CPU per `unit` (the backends' measured CPU shared out by samples), then the waits' estimated µs per `unit`. */
  report(count: number, cpuUs: number, unit = 'event'): string[] {
    const cpu = [...this.samples].filter(([k]) => k.startsWith('CPU\t'));
    const onCpu = cpu.reduce((a, [, n]) => a + n, 0);
    const interval = this.elapsed / Math.max(1, this.rounds);
    const lines = [`${this.app} by statement (${this.rounds} samples of pg_stat_activity, one per ${interval.toFixed(1)} ms), µs per ${unit}:`];
    for (const [k, n] of cpu.sort((a, b) => b[1] - a[1]).slice(0, 14)) lines.push(`  cpu  ${String(Math.round((cpuUs * n) / onCpu / count)).padStart(5)}  ${k.slice(4)}`);
    const waits = [...this.samples].filter(([k]) => !k.startsWith('CPU\t')).sort((a, b) => b[1] - a[1]).slice(0, 6);
    for (const [k, n] of waits) {
      const [w, q] = k.split('\t');
      lines.push(`  wait ${String(Math.round((n * interval * 1000) / count)).padStart(5)}  ${w} in ${q}`);
    }
    return lines;
  }
}
