import { spawn, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { freePort, processCpu, processTreeCpu, sleep } from './util';
import { runLoad, type Scenario } from './load';
import { seedConfig, seedUsers } from './seed';

/**
 * `node dist/bench/ab.js name=DIR name=DIR ...`: builds of Laurel (each DIR
 * holds a built tree: DIR/dist/src/main.js) served side by side on one Redis
 * of the bench's own and the shared Postgres, each seeded alike, then given
 * the bench's event load in turn, alternating the order every round, so each
 * compares with the others on the same machine state. Per run: events/s,
 * p99 and the server process's CPU time per event (user + system from
 * /proc, over the load alone and over the load and its flush).
 * AB_ROUNDS (3), AB_SECONDS (15), AB_USERS (20,000), AB_CONNECTIONS (64),
 * AB_RATE (paced requests/s; unset: as fast as the server answers),
 * AB_NODE_ARGS (e.g. --cpu-prof --cpu-prof-dir=DIR) for the servers' node.
 * AB_CONCURRENT=1 loads every target at once instead (each with its own load
 * generator, AB_RATE each): on a machine whose other load comes and goes, the
 * targets then share one machine state, and their CPU per event compares.
 */
const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const SECONDS = Number(process.env.AB_SECONDS ?? 15);
const USERS = Number(process.env.AB_USERS ?? 20_000);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 64);
const RATE = process.env.AB_RATE ? Number(process.env.AB_RATE) : undefined;
const CONCURRENT = process.env.AB_CONCURRENT === '1';
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

async function until(what: string, fn: () => Promise<boolean>, ms = 300_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** CPU time (µs) of this process's finished children (the load generator), from /proc. */
function childrenCpu(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) * 1e4;
}

interface Target {
  name: string;
  proc: ChildProcess;
  url: string;
  schema: string;
}

async function main(): Promise<void> {
  const trees = process.argv.slice(2).map((a) => {
    const [name, dir] = a.split('=') as [string, string];
    return { name, dir: path.resolve(dir) };
  });
  if (trees.length < 2) throw new Error('usage: ab.js name=DIR name=DIR ...');
  const id = randomBytes(4).toString('hex');
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-ab-'));
  const procs: ChildProcess[] = [];
  const targets: Target[] = [];
  const pg = new Pool({ connectionString: DATABASE_URL, max: 1 });
  try {
    const redisPort = await freePort();
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const redisProc = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    procs.push(redisProc);
    const redis = new Redis(redisUrl);
    redis.on('error', () => undefined);
    await until('redis', async () => (await redis.ping()) === 'PONG');
    redis.disconnect();

    const nodeArgs = process.env.AB_NODE_ARGS ? process.env.AB_NODE_ARGS.split(' ') : [];
    for (const [i, t] of trees.entries()) {
      const port = await freePort();
      const schema = `ab_${id}_${i}`;
      const proc = spawn(process.execPath, [...nodeArgs, path.join(t.dir, 'dist/src/main.js')], {
        cwd: t.dir, stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `ab-${id}-${i}:`, DATABASE_SCHEMA: schema,
          ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn', WORKERS: '1', BACKGROUND: 'inline',
        },
      });
      procs.push(proc);
      const url = `http://127.0.0.1:${port}`;
      targets.push({ name: t.name, proc, url, schema });
      await until(`${t.name} to start`, async () => (await fetch(`${url}/healthz`)).ok);
      process.stderr.write(`ab: seeding ${t.name} (${USERS} users)\n`);
      await seedConfig(url, adminKey);
      await seedUsers(url, adminKey, USERS);
    }
    const lag = async (t: Target) => ((await (await fetch(`${t.url}/readyz`)).json()) as { flusherLag: { entries: number } }).flusherLag.entries;
    const drained = (t: Target) => until(`${t.name} to drain`, async () => (await lag(t)) === 0);
    for (const t of targets) {
      await drained(t);
      await until(`${t.name}'s first scheduler run`, async () => /^laurel_scheduler_runs_total\{outcome="ok"\} [1-9]/m.test(await (await fetch(`${t.url}/metrics`)).text()));
    }

    const events: Scenario = { method: 'POST', path: '/v1/metrics/{metric}/event', body: 'event', apiKey: adminKey, idempotent: true };
    const load = (t: Target, seconds: number) => runLoad(t.name, events, { url: t.url, seconds, connections: CONNECTIONS, users: USERS, tag: id, rate: RATE });
    const runs: Record<string, { rps: number; cpu: number }[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
    process.stdout.write(`round\ttarget\tev/s\tp99 ms\tLaurel CPU µs/ev (load)\t(load+flush)\tRedis\twrk\n`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      // Alternating: one target at a time. Concurrent: all at once, so each sees the same machine state.
      for (const group of CONCURRENT ? [order] : order.map((t) => [t])) {
        await Promise.all(group.map((t) => load(t, 3)));
        await Promise.all(group.map(drained));
        const c0 = group.map((t) => processTreeCpu(t.proc.pid!));
        const [r0, w0] = [processCpu(redisProc.pid!), childrenCpu()];
        const f = await Promise.all(group.map((t) => load(t, SECONDS)));
        const c1 = group.map((t) => processTreeCpu(t.proc.pid!));
        const [r1, w1] = [processCpu(redisProc.pid!), childrenCpu()];
        await Promise.all(group.map(drained));
        const c2 = group.map((t) => processTreeCpu(t.proc.pid!));
        for (const [k, t] of group.entries()) {
          const n = f[k]!.rps * SECONDS;
          const us = (v: number) => (v / n).toFixed(1);
          // Redis and the load generator are shared by a concurrent group: their CPU is not one target's.
          const shared = group.length === 1 ? `\t${us(r1 - r0)}\t${us(w1 - w0)}` : '\t-\t-';
          runs[t.name]!.push({ rps: f[k]!.rps, cpu: (c1[k]! - c0[k]!) / n });
          process.stdout.write(`${round + 1}\t${t.name}\t${Math.round(f[k]!.rps)}\t${f[k]!.p99}\t${us(c1[k]! - c0[k]!)}\t${us(c2[k]! - c0[k]!)}${shared}${f[k]!.errors ? `\terrors ${f[k]!.errors}` : ''}\n`);
        }
      }
    }
    const median = (v: number[]) => {
      const s = [...v].sort((a, b) => a - b);
      return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
    };
    for (const [name, r] of Object.entries(runs)) {
      const rps = r.map((x) => x.rps), cpu = r.map((x) => x.cpu);
      process.stdout.write(`${name}: ev/s median ${Math.round(median(rps))} (${Math.round(Math.min(...rps))}-${Math.round(Math.max(...rps))}); `
        + `CPU µs/ev median ${median(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}-${Math.max(...cpu).toFixed(1)})\n`);
    }
  } finally {
    for (const t of targets) {
      const gone = new Promise((r) => t.proc.once('exit', r));
      t.proc.kill('SIGTERM');
      await Promise.race([gone, sleep(15_000)]);
    }
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
    for (const t of targets) await pg.query(`DROP SCHEMA IF EXISTS "${t.schema}" CASCADE`).catch(() => undefined);
    await pg.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
