import { spawn, ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Reply, Request, Route } from '../src/http/server';

/**
 * The HTTP layer alone, without Redis or Postgres:
 * `node dist/bench/http-layer.js name=DIR name=DIR ...` serves the event
 * route's shape (a JSON body read and parsed, an answer of the event's size
 * after a turn of the event loop) with the HTTP server of each built tree
 * (DIR/dist/src/http/server.js), loads them all at once with the bench's event
 * requests (wrk, bench/load.lua, 64 connections each, paced to HTTP_LAYER_RATE
 * requests/s each, 1,500 by default) and prints each server's CPU time per
 * request, round by round (HTTP_LAYER_ROUNDS, 8, of HTTP_LAYER_SECONDS, 5).
 * All at once, so that each round every server sees the same machine state.
 * `node dist/bench/http-layer.js --serve DIR` is one such server.
 */
const ROUNDS = Number(process.env.HTTP_LAYER_ROUNDS ?? 8);
const SECONDS = Number(process.env.HTTP_LAYER_SECONDS ?? 5);
const RATE = Number(process.env.HTTP_LAYER_RATE ?? 1500);

/** An answer the size of an event's (about 450 bytes). */
const ANSWER = {
  points: { xp: { id: 'x'.repeat(36), key: 'xp', name: 'XP', total: 1234, added: 10, level: { key: 'silver', name: 'Silver', points: 100 }, awards: [] } },
  achievements: [], currentStreak: { length: 3, frequency: 'daily' }, leaderboards: { 'all-time': { rank: 123, previousRank: 130 } },
  eventId: 'e'.repeat(36), metricId: 'm'.repeat(36), total: 55,
};

function serve(dir: string): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another build's compiled modules, by path
  const http = require(path.join(dir, 'dist/src/http/server.js')) as typeof import('../src/http/server');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another build's compiled modules, by path
  const { jsonBody } = require(path.join(dir, 'dist/src/http/body.js')) as typeof import('../src/http/body');
  const quiet = () => undefined;
  const log = { isLevelEnabled: () => false, debug: quiet, info: quiet, warn: quiet, error: (...a: unknown[]) => console.error(...a) };
  const routes: Route[] = [{
    method: 'post', pattern: '/v1/metrics/:key/event', body: true,
    handler: async (req: Request): Promise<Reply> => {
      const body = jsonBody(req) as { user: unknown };
      await new Promise((r) => setImmediate(r)); // where Laurel waits on Redis
      return http.reply(201, { ...ANSWER, user: body.user, key: req.params[0] });
    },
  }];
  const server = http.createHttpServer(routes, { maxBodyBytes: 1 << 20, log: log as never });
  void server.listen('127.0.0.1', 0).then((port) => process.stdout.write(`${port}\n`));
  process.on('SIGTERM', () => process.exit(0)); // exits cleanly, so --cpu-prof writes its profile
}

/** User and system CPU time (µs) of a process so far. */
function cpu(pid: number): { user: number; sys: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(f[11]) * 1e4, sys: Number(f[12]) * 1e4 };
}

function start(dir: string): Promise<{ proc: ChildProcess; port: number }> {
  const args = process.env.HTTP_LAYER_NODE_ARGS ? process.env.HTTP_LAYER_NODE_ARGS.split(' ') : [];
  const proc = spawn(process.execPath, [...args, __filename, '--serve', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => proc.stdout!.once('data', (d: Buffer) => resolve({ proc, port: Number(String(d).trim()) })));
}

function wrk(port: number, seconds: number): Promise<number> {
  const env = {
    ...process.env, LOAD_METHOD: 'POST', LOAD_PATH: '/v1/metrics/{metric}/event', LOAD_BODY: 'event', LOAD_USERS: '20000',
    LOAD_API_KEY: 'admin_bench.0123456789abcdef0123456789abcdef', LOAD_IDEMPOTENT: '1', LOAD_TAG: String(Math.random()),
    LOAD_THREADS: '1', LOAD_CONNECTIONS: '64', LOAD_RATE: String(RATE),
  };
  const root = path.resolve(__dirname, '../..');
  const w = spawn('wrk', ['-t', '1', '-c', '64', '-d', `${seconds}s`, '-s', path.join(root, 'bench/load.lua'), `http://127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  w.stdout.on('data', (d: Buffer) => (out += d));
  return new Promise((resolve, reject) => w.once('close', () => {
    const line = /^LOAD (\{.*\})$/m.exec(out);
    if (!line) return reject(new Error(`wrk: ${out}`));
    resolve((JSON.parse(line[1]!) as { requests: number }).requests);
  }));
}

async function compare(targets: string[]): Promise<void> {
  const servers = await Promise.all(targets.map(async (t) => {
    const [name, dir] = t.split('=') as [string, string];
    return { name, ...(await start(path.resolve(dir))), perRequest: [] as number[] };
  }));
  try {
    await Promise.all(servers.map((s) => wrk(s.port, 2))); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      const before = servers.map((s) => cpu(s.proc.pid!));
      const served = await Promise.all(servers.map((s) => wrk(s.port, SECONDS)));
      const cells = servers.map((s, i) => {
        const after = cpu(s.proc.pid!);
        const user = (after.user - before[i]!.user) / served[i]!, sys = (after.sys - before[i]!.sys) / served[i]!;
        s.perRequest.push(user + sys);
        return `${s.name} ${Math.round(served[i]! / SECONDS)}/s ${(user + sys).toFixed(1)} µs (user ${user.toFixed(1)})`;
      });
      process.stdout.write(`${round}\t${cells.join(' | ')}\n`);
    }
    for (const s of servers) {
      const v = [...s.perRequest].sort((a, b) => a - b);
      process.stdout.write(`${s.name}: CPU µs per request, median ${v[v.length >> 1]!.toFixed(1)} (${v[0]!.toFixed(1)}-${v[v.length - 1]!.toFixed(1)})\n`);
    }
  } finally {
    for (const s of servers) s.proc.kill('SIGTERM');
  }
}

if (process.argv[2] === '--serve') serve(process.argv[3]!);
else void compare(process.argv.slice(2));
