import { spawn, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import Redis from 'ioredis';
import { purgeKeys } from '../src/redis/purge';

/**
 * `npm run bench`: events/s and latency of Laurel's event endpoint beside a
 * bare uWebSockets.js server, measured in the same run on the same machine.
 * Laurel is started as a child process with its own key prefix and schema
 * (removed afterwards), unless LAUREL_URL and LAUREL_ADMIN_KEY name a running one.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const ROOT = path.resolve(__dirname, '../..');
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  errors: number;
  requests: number;
}

function startChild(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    child.stdout!.once('data', (d: Buffer) => resolve({ child, port: Number(String(d).trim()) }));
  });
}

async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become healthy`);
}

function load(name: string, url: string, headers: Record<string, string>, seconds = SECONDS): Promise<Figures> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { 'content-type': 'application/json', ...headers },
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ user: { id: `user-${Math.floor(Math.random() * USERS)}` }, value: 1 }),
            }),
          },
        ],
      },
      (err, r) => {
        if (err) return reject(err);
        const lat = r.latency as unknown as Record<string, number>;
        resolve({
          name,
          rps: r.requests.average,
          p50: lat.p50!,
          p99: lat.p99!,
          p999: lat.p99_9 ?? lat.p99!,
          errors: r.errors + r.timeouts + r.non2xx,
          requests: r.requests.total,
        });
      },
    );
  });
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const id = randomBytes(4).toString('hex');
  const prefix = `bench-${id}:`;
  const schema = `bench_${id}`;
  let laurelUrl = process.env.LAUREL_URL;
  let adminKey = process.env.LAUREL_ADMIN_KEY;
  try {
    if (!laurelUrl || !adminKey) {
      adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
      const port = 20000 + Math.floor(Math.random() * 20000);
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_KEY_PREFIX: prefix, DATABASE_SCHEMA: schema, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn' },
        stdio: 'inherit',
      });
      children.push(child);
      laurelUrl = `http://127.0.0.1:${port}`;
    }
    await waitHealthy(laurelUrl);
    const metricKey = `bench-${id}`;
    const res = await fetch(`${laurelUrl}/admin/v1/metrics`, {
      method: 'POST',
      headers: { 'X-API-KEY': adminKey, 'Content-Type': 'application/json' },
      body: JSON.stringify([{ name: 'Bench', key: metricKey }]),
    });
    if (res.status !== 201) throw new Error(`could not create the bench metric: ${res.status} ${await res.text()}`);

    const baseline = await startChild(['dist/bench/baseline-server.js'], { PORT: '0' });
    children.push(baseline.child);

    process.stderr.write(`bench: ${SECONDS}s per target, ${CONNECTIONS} connections, ${USERS} users\n`);
    const targets: [string, string, Record<string, string>][] = [
      ['bare uWebSockets.js (parse + answer)', `http://127.0.0.1:${baseline.port}/event`, {}],
      ['Laurel POST /v1/metrics/{key}/event', `${laurelUrl}/v1/metrics/${metricKey}/event`, { 'X-API-KEY': adminKey }],
    ];
    const results: Figures[] = [];
    for (const [name, url, headers] of targets) {
      await load(name, url, headers, 2); // warm-up (JIT, connections), not counted
      results.push(await load(name, url, headers));
    }

    const base = results[0]!;
    const lines = [
      `| target | events/s | p50 ms | p99 ms | p99.9 ms | errors | ratio to bare |`,
      `| --- | ---: | ---: | ---: | ---: | ---: | ---: |`,
      ...results.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.p999} | ${r.errors} | ${(r.rps / base.rps).toFixed(2)} |`),
    ];
    const report = [
      `# Benchmark results`,
      ``,
      `${new Date().toISOString()}: ${SECONDS} s per target, ${CONNECTIONS} connections, random users out of ${USERS}, load generated by autocannon on the same machine.`,
      ``,
      ...lines,
      ``,
    ].join('\n');
    process.stdout.write(`\n${lines.join('\n')}\n`);
    writeFileSync(path.join(ROOT, 'bench/RESULTS.md'), report);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    if (!process.env.LAUREL_URL) await cleanup(prefix, schema);
  }
}

async function cleanup(prefix: string, schema: string): Promise<void> {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
  const r = new Redis(REDIS_URL);
  await purgeKeys(r, `${prefix}*`);
  r.disconnect();
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
