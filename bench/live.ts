import { fork, spawn, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { seedConfig } from './seed';
import { dropSchemas, freePort, sleep } from './util';

/**
 * Live updates under load, against a running Laurel process (`pid` for its
 * memory): what idle connections cost, and how long an event takes from its
 * HTTP response to a subscriber. Used by `npm run bench` (bench/run.ts) and
 * on its own by `npm run bench:live`, which starts a Redis and a Laurel of its
 * own. The event path itself has no live code (see docs/live-updates.md): its
 * throughput with no subscriber is the bench's event row.
 */
export interface LiveBenchOptions {
  url: string;
  adminKey: string;
  pid: number;
  /** Idle connections (each subscribed to a user of its own who never changes). */
  idle: number;
  /** Subscribers (one connection and one user each), and the events a second spread over their users. */
  subscribers: number;
  rate: number;
  seconds: number;
}

export interface LiveFigures {
  idle: number;
  bytesPerIdle: number;
  subscribers: number;
  rate: number;
  events: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
  /** The events' own round trips (request to response), for scale: the same machine serves both. */
  eventP50: number;
  eventP99: number;
}

/** Resident memory of a process (bytes, from /proc). */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

function open(url: string, key: string, subscription: string, onMessage?: (data: string) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/live`, { headers: { 'X-API-KEY': key }, perMessageDeflate: false });
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ subscribe: subscription })));
    ws.on('message', (data) => {
      const text = String(data);
      if (text.startsWith('{"subscribed"')) resolve(ws);
      else onMessage?.(text);
    });
  });
}

/** Open `n` connections, `batch` at a time. */
async function openMany(n: number, batch: number, make: (i: number) => Promise<WebSocket>): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  for (let i = 0; i < n; i += batch) out.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, (_, j) => make(i + j)))));
  return out;
}

/** Wall-clock time in ms with sub-ms precision, comparable between processes of one host. */
const wall = () => performance.timeOrigin + performance.now();

/**
 * The subscribers, in a process of their own (so the load generator's work
 * does not delay their receipts): they open their connections, then note
 * when each event's update arrives, and hand those times over when asked.
 */
async function subscriberProcess(): Promise<void> {
  const arrived = new Map<string, number>();
  process.on('message', async (m: { open?: { url: string; key: string; n: number }; report?: boolean }) => {
    if (m.open) {
      const { url, key, n } = m.open;
      await openMany(n, 250, (i) => open(url, key, `user:live-${i}`, (text) => {
        const id = /"eventId":"([^"]+)"/.exec(text);
        if (id && text.includes('"metric.changed"')) arrived.set(id[1]!, wall());
      }));
      process.send!({ ready: true });
    } else if (m.report) {
      process.send!({ arrived: [...arrived] }, () => process.exit(0));
    } else {
      arrived.clear();
      process.send!({ cleared: true });
    }
  });
}

function ask<T>(child: ChildProcess, msg: unknown, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      child.off('message', on);
      resolve(m[key] as T);
    };
    child.on('message', on);
    child.send(msg as object);
  });
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : NaN);

export async function liveBench(o: LiveBenchOptions): Promise<LiveFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const event = (user: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ user: { id: user }, value: 1 });
      const req = http.request(`${o.url}/v1/metrics/lessons/event`, {
        method: 'POST', agent, headers: { 'X-API-KEY': o.adminKey, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => (res.statusCode === 201 ? resolve((JSON.parse(text) as { eventId: string }).eventId) : reject(new Error(`event: ${res.statusCode} ${text}`))));
      });
      req.on('error', reject);
      req.end(body);
    });

  // Memory: the server's resident set before and after the idle connections (settled a moment each time).
  await sleep(1000);
  const before = rss(o.pid);
  const idle = await openMany(o.idle, 250, (i) => open(o.url, o.adminKey, `user:idle-${i}`));
  await sleep(2000);
  const bytesPerIdle = (rss(o.pid) - before) / Math.max(1, o.idle);

  // Fan-out latency: from the event's response (here) to its update at a subscriber (in another process).
  const subscribers = fork(__filename, ['--subscribers'], { stdio: 'inherit' });
  await ask(subscribers, { open: { url: o.url, key: o.adminKey, n: o.subscribers } }, 'ready');
  const answered = new Map<string, number>();
  // A warm-up: each user's first event creates the user.
  await Promise.all(Array.from({ length: o.subscribers }, (_, i) => event(`live-${i}`)));
  await sleep(500);
  await ask(subscribers, { clear: true }, 'cleared');
  const total = Math.round(o.rate * o.seconds);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const roundTrips: number[] = [];
  for (let k = 0; k < total; k++) {
    // Paced: event k leaves at k / rate seconds.
    const due = started + (k * 1000) / o.rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const sent = wall();
    pending.push(event(`live-${k % o.subscribers}`).then((id) => {
      const at = wall();
      answered.set(id, at);
      roundTrips.push(at - sent);
    }, () => undefined));
  }
  await Promise.all(pending);
  await sleep(1000);
  const arrived = new Map(await ask<[string, number][]>(subscribers, { report: true }, 'arrived'));
  const latencies: number[] = [];
  for (const [id, t0] of answered) {
    const t1 = arrived.get(id);
    // An update may even arrive before the response does: that counts as 0.
    if (t1 !== undefined) latencies.push(Math.max(0, t1 - t0));
  }
  latencies.sort((a, b) => a - b);
  roundTrips.sort((a, b) => a - b);
  for (const ws of idle) ws.terminate();
  agent.destroy();
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    idle: o.idle, bytesPerIdle: Math.round(bytesPerIdle), subscribers: o.subscribers, rate: o.rate, events: answered.size, received: latencies.length,
    p50: round(pct(latencies, 50)), p99: round(pct(latencies, 99)), max: round(latencies.at(-1) ?? NaN),
    eventP50: round(pct(roundTrips, 50)), eventP99: round(pct(roundTrips, 99)),
  };
}

/** Rows for bench/RESULTS.md. */
export function liveRows(f: LiveFigures): string[] {
  return [
    `| live: server memory per idle connection (${f.idle} connections, one user subscription each; RSS growth) | ${(f.bytesPerIdle / 1024).toFixed(1)} KiB |`,
    `| live: event response to subscriber, ${f.subscribers} subscribers, ${f.rate} events/s (${f.received} of ${f.events} received): p50 / p99 / max | ${f.p50} / ${f.p99} / ${f.max} ms |`,
    `| live: those events' own round trips (request to response), p50 / p99 | ${f.eventP50} / ${f.eventP99} ms |`,
  ];
}

/** `npm run bench:live`: a Redis and a Laurel of its own, then liveBench. BENCH_LIVE_IDLE, _SUBSCRIBERS, _RATE, _SECONDS change the load. */
async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-live-'));
  const schema = `bench_${id}`;
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';
  const children: ChildProcess[] = [];
  try {
    const redisPort = await freePort();
    children.push(spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }));
    const port = await freePort();
    const laurel = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_KEY_PREFIX: `bench-${id}:`,
        DATABASE_SCHEMA: schema, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn', LIVE_MAX_CONNECTIONS_PER_KEY: '1000000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(laurel);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; !(await fetch(`${url}/healthz`).then((r) => r.ok, () => false)); i++) {
      if (i > 300) throw new Error('laurel did not start');
      await sleep(100);
    }
    await seedConfig(url, adminKey);
    const f = await liveBench({
      url, adminKey, pid: laurel.pid!,
      idle: Number(process.env.BENCH_LIVE_IDLE ?? 10_000),
      subscribers: Number(process.env.BENCH_LIVE_SUBSCRIBERS ?? 1_000),
      rate: Number(process.env.BENCH_LIVE_RATE ?? 1_000),
      seconds: Number(process.env.BENCH_LIVE_SECONDS ?? 10),
    });
    process.stdout.write(`${liveRows(f).join('\n')}\n`);
  } finally {
    for (const c of children.reverse()) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await Promise.race([gone, sleep(10_000)]);
    }
    await dropSchemas(databaseUrl, schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module && process.argv.includes('--subscribers')) {
  void subscriberProcess();
} else if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
    process.exit(1);
  });
}
