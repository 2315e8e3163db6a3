import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { startServer } from './helpers/harness';
import { Relay } from './helpers/proxy';
import { freePort, processDeployment, spawnServer, until } from './helpers/process';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A client that sends `n` events of value 1 for one user, each with its own
 * Idempotency-Key, retrying the same key after any failure, as a careful
 * client would. Every status seen is recorded.
 */
async function client(base: () => string, key: string, user: string, n: number, seen: number[], deadline: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) {
    for (;;) {
      if (Date.now() > deadline) throw new Error('the load did not finish in time');
      try {
        const r = await fetch(`${base()}/v1/metrics/m/event`, {
          method: 'POST',
          headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Idempotency-Key': `${user}-${i}` },
          body: JSON.stringify({ user: { id: user }, value: 1 }),
        });
        seen.push(r.status);
        await r.text();
        if (r.status === 201 || r.status === 202) break;
      } catch {
        seen.push(0); // connection refused or reset
      }
      await sleep(30);
    }
  }
}

async function pgCount(schema: string): Promise<number> {
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    return (await c.query(`SELECT count(*)::int AS n FROM "${schema}".events`)).rows[0].n;
  } finally {
    await c.end();
  }
}

t.test('kill -9 under load loses no acknowledged event; SIGTERM exits cleanly', async (t) => {
  const env = processDeployment(t);
  let server = await spawnServer(env);
  let base = server.url;
  const key = env.ADMIN_API_KEY;
  const made = await fetch(`${base}/admin/v1/metrics`, { method: 'POST', headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: JSON.stringify([{ name: 'M', key: 'm' }]) });
  t.equal(made.status, 201);

  const users = ['a', 'b', 'c', 'd'];
  const seen: number[] = [];
  const deadline = Date.now() + 60_000;
  const load = Promise.all(users.map((u) => client(() => base, key, u, 150, seen, deadline)));
  await until('some progress', async () => seen.filter((s) => s === 201).length > 100);
  server.proc.kill('SIGKILL');
  await server.exit;
  server = await spawnServer(env);
  base = server.url;
  await load;

  t.ok(seen.includes(0), 'the clients saw the crash');
  for (const u of users) {
    const r = await fetch(`${base}/v1/users/${u}/metrics/m`, { headers: { 'X-API-KEY': key } });
    t.equal(((await r.json()) as { current: number }).current, 150, `${u}: every event counted once, retries included`);
  }
  // The dead process's unflushed records are claimed and written.
  await until('every event in Postgres', async () => (await pgCount(env.DATABASE_SCHEMA)) === 600);

  const started = Date.now();
  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0, 'SIGTERM: exit 0');
  t.ok(Date.now() - started < 10_000, 'within 10 seconds');
});

t.test('a Redis restart under load (appendfsync always): 503 during the outage, never 500, nothing lost', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-redis-'));
  const port = await freePort();
  const startRedis = () => {
    const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], { stdio: 'ignore' });
    return p;
  };
  let redisProc = startRedis();
  const url = `redis://127.0.0.1:${port}`;
  const probe = () => {
    const r = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    r.on('error', () => undefined);
    return r.connect().then(() => r.ping()).finally(() => r.disconnect());
  };
  await until('redis', async () => (await probe()) === 'PONG');
  t.teardown(async () => {
    redisProc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const s = await startServer(t, { REDIS_URL: url, REDIS_CLUSTER: '' });
  await s.metrics(['m']);

  const seen: number[] = [];
  const deadline = Date.now() + 60_000;
  const users = ['a', 'b', 'c'];
  const load = Promise.all(users.map((u) => client(() => s.url, s.adminKey, u, 120, seen, deadline)));
  await until('some progress', async () => seen.filter((x) => x === 201).length > 60);
  const admin = new Redis(url, { retryStrategy: () => null });
  admin.on('error', () => undefined);
  await admin.call('SHUTDOWN').catch(() => undefined); // fsyncs the AOF and exits
  admin.disconnect();
  await until('redis to stop', async () => redisProc.exitCode !== null || redisProc.signalCode !== null);
  await sleep(500);
  redisProc = startRedis();
  await load;

  t.ok(seen.includes(503), 'requests during the outage got 503');
  t.notOk(seen.includes(500), 'never a 500');
  for (const u of users) t.equal((await s.call('GET', `/v1/users/${u}/metrics/m`)).body.current, 120, `${u}: nothing acknowledged was lost`);
});

t.test('Postgres away for 30 seconds under load: events keep flowing, nothing lost', async (t) => {
  const relay = new Relay(Number(new URL(DATABASE_URL).port || 5432));
  const port = await relay.start();
  const url = new URL(DATABASE_URL);
  url.port = String(port);
  t.teardown(() => relay.cut());
  const s = await startServer(t, { DATABASE_URL: url.toString() });
  await s.metrics(['m']);
  const seen: number[] = [];
  const deadline = Date.now() + 90_000;
  let stop = false;
  const steady = (async () => {
    for (let i = 0; !stop; i++) {
      await client(() => s.url, s.adminKey, 'steady', 1, seen, deadline, i);
      await sleep(50);
    }
  })();
  await sleep(1000);
  await relay.cut();
  await sleep(30_000);
  await relay.restore();
  await sleep(1000);
  stop = true;
  await steady;
  const acked = seen.filter((x) => x === 201 || x === 202).length;
  t.ok(acked > 100, `events were accepted throughout (${acked})`);
  t.notOk(seen.some((x) => x >= 500), 'no event was refused');
  await until('the backlog to be flushed', async () => (await pgCount(s.schema)) === acked, 30_000);
  t.equal((await s.call('GET', '/v1/users/steady/metrics/m')).body.current, acked);
});
