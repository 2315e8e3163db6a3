import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';

/**
 * The bench's load generator. A scenario is described once and run by wrk
 * (bench/load.lua) when it is on PATH: a C client that leaves the 2-core
 * machine's CPU to the server far more than autocannon does. autocannon,
 * with the same scenario in setupRequest, is the fallback.
 * BENCH_LOADGEN=autocannon forces it; BENCH_WRK_THREADS sets wrk's -t.
 */

export interface Scenario {
  method: 'GET' | 'POST';
  /** `{user}` becomes user-N (N random in [0, users)), `{metric}` one of METRICS. */
  path: string;
  /** 'event': {"user":{"id":"user-N"},"value":V}, V in 1..20, N the path's user if it has one. */
  body?: 'event';
  apiKey?: string;
  /** Half the requests carry an Idempotency-Key; 5% of those replay an earlier request. */
  idempotent?: boolean;
}

export interface LoadOptions {
  url: string;
  seconds: number;
  connections: number;
  users: number;
  /** Makes fresh idempotency keys unique across runs (each load adds its own number). */
  tag: string;
  /** Paced load: about this many requests a second in all (wrk: at random moments; autocannon: its overallRate). */
  rate?: number;
}

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  errors: number;
}

export const METRICS = ['lessons', 'words', 'minutes'];
/** Requests kept for replays (split between wrk's threads). */
const REPLAY_MEMORY = 100_000;
const ROOT = path.resolve(__dirname, '../..');

type Generator = { kind: 'wrk'; threads: number } | { kind: 'autocannon' };

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Which generator this run uses, decided once. */
export const generator: Generator = (() => {
  const wanted = process.env.BENCH_LOADGEN;
  if (wanted && wanted !== 'wrk' && wanted !== 'autocannon') throw new Error(`BENCH_LOADGEN must be wrk or autocannon, not ${wanted}`);
  if (wanted === 'autocannon') return { kind: 'autocannon' };
  if (onPath('wrk')) return { kind: 'wrk', threads: Math.max(1, Math.floor(Number(process.env.BENCH_WRK_THREADS)) || 1) };
  if (wanted === 'wrk') throw new Error('BENCH_LOADGEN=wrk but wrk is not on PATH (apt-get install wrk)');
  return { kind: 'autocannon' };
})();

/** For the report: "wrk (1 thread)" or "autocannon". */
export function generatorName(): string {
  return generator.kind === 'wrk' ? `wrk (${generator.threads} thread${generator.threads === 1 ? '' : 's'})` : 'autocannon';
}

let loads = 0;

export function runLoad(name: string, scenario: Scenario, opts: LoadOptions): Promise<Figures> {
  // A fresh tag per load, so no load replays another's keys by accident.
  const run = { ...opts, tag: `${opts.tag}.${++loads}` };
  return generator.kind === 'wrk' ? withWrk(name, scenario, run, generator.threads) : withAutocannon(name, scenario, run);
}

function withWrk(name: string, s: Scenario, opts: LoadOptions, wantThreads: number): Promise<Figures> {
  const threads = Math.min(wantThreads, opts.connections); // wrk refuses fewer connections than threads
  const env = {
    ...process.env,
    LOAD_METHOD: s.method,
    LOAD_PATH: s.path,
    LOAD_BODY: s.body ?? '',
    LOAD_USERS: String(opts.users),
    LOAD_API_KEY: s.apiKey ?? '',
    LOAD_IDEMPOTENT: s.idempotent ? '1' : '',
    LOAD_TAG: opts.tag,
    LOAD_THREADS: String(threads),
    LOAD_CONNECTIONS: String(opts.connections),
    ...(opts.rate ? { LOAD_RATE: String(opts.rate) } : {}),
  };
  const args = ['-t', String(threads), '-c', String(opts.connections), '-d', `${opts.seconds}s`,
    // autocannon's timeout, so a slow answer is a latency, not an error, under both.
    '--timeout', '10s', '--latency', '-s', path.join(ROOT, 'bench/load.lua'), opts.url];
  return new Promise((resolve, reject) => {
    const proc = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d));
    proc.once('error', reject);
    proc.once('close', (code) => {
      const line = /^LOAD (\{.*\})$/m.exec(out);
      if (code !== 0 || !line) return reject(new Error(`wrk exited with ${code}:\n${out}`));
      const r = JSON.parse(line[1]!) as { rps: number; p50: number; p99: number; p999: number; errors: number };
      const ms = (v: number) => Math.round(v * 100) / 100;
      resolve({ name, rps: r.rps, p50: ms(r.p50), p99: ms(r.p99), p999: ms(r.p999), errors: r.errors });
    });
  });
}

type Request = autocannon.Request;

/** The scenario as autocannon's setupRequest: the same requests load.lua sends. */
function setupRequest(s: Scenario, opts: LoadOptions): (req: Request) => Request {
  const sent: Request[] = []; // keyed requests, for replays
  let n = 0;
  const fresh = (req: Request, keyed: boolean): Request => {
    const user = `user-${Math.floor(Math.random() * opts.users)}`;
    const headers: Request['headers'] = { ...req.headers };
    if (s.apiKey) headers['x-api-key'] = s.apiKey;
    if (s.body) headers['content-type'] = 'application/json';
    if (keyed) headers['idempotency-key'] = `${opts.tag}-0-${++n}`;
    const out: Request = {
      ...req,
      method: s.method,
      path: s.path.replaceAll('{user}', user).replaceAll('{metric}', () => METRICS[Math.floor(Math.random() * METRICS.length)]!),
      headers,
      body: s.body ? JSON.stringify({ user: { id: user }, value: 1 + Math.floor(Math.random() * 20) }) : undefined,
    };
    if (keyed && sent.length < REPLAY_MEMORY) sent.push(out);
    return out;
  };
  return (req) => {
    if (!(s.idempotent && Math.random() < 0.5)) return fresh(req, false);
    if (sent.length > 0 && Math.random() < 0.05) return sent[Math.floor(Math.random() * sent.length)]!;
    return fresh(req, true);
  };
}

function withAutocannon(name: string, s: Scenario, opts: LoadOptions): Promise<Figures> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: opts.url,
        method: s.method,
        connections: opts.connections,
        duration: opts.seconds,
        ...(opts.rate ? { overallRate: opts.rate } : {}),
        requests: [{ setupRequest: setupRequest(s, opts) }],
      },
      (err, r) => {
        if (err) return reject(err);
        const lat = r.latency as unknown as Record<string, number>;
        resolve({ name, rps: r.requests.average, p50: lat.p50!, p99: lat.p99!, p999: lat.p99_9 ?? lat.p99!, errors: r.errors + r.timeouts + r.non2xx });
      },
    );
  });
}
