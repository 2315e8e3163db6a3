import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { freshGet as get, freshPost as post, processDeployment, spawnServer, until } from './helpers/process';
import { sharedRedis } from './helpers/harness';
import { FLUSH_GROUP, Keys } from '../src/redis/keys';

/** Child process ids (ps exits 1 when there are none). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((s) => Number(s.trim())).filter(Boolean);
  } catch {
    return [];
  }
}

/** The supervisor's children by role: HTTP workers (LAUREL_WORKER=1..N) and the background process. */
function rolesOf(pid: number): { http: number[]; background: number[] } {
  const out = { http: [] as number[], background: [] as number[] };
  for (const child of childrenOf(pid)) {
    let env: string;
    try {
      env = readFileSync(`/proc/${child}/environ`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const worker = env.split('\0').find((v) => v.startsWith('LAUREL_WORKER='))?.slice('LAUREL_WORKER='.length);
    if (worker === 'background') out.background.push(child);
    else if (worker) out.http.push(child);
  }
  return out;
}

t.test('WORKERS=2: two processes share the port; a dead worker is replaced; SIGTERM stops all', async (t) => {
  const env = processDeployment(t, { WORKERS: '2' });
  const server = await spawnServer(env);
  const workers = await until('two workers', async () => (rolesOf(server.proc.pid!).http.length === 2 ? rolesOf(server.proc.pid!).http : null));
  const key = env.ADMIN_API_KEY;
  t.equal(await post(server.url, '/admin/v1/metrics', key, [{ name: 'M', key: 'm' }]), 201);

  const send = (n: number, from: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => post(server.url, '/v1/metrics/m/event', key, { user: { id: 'u' }, value: 1 }, { 'Idempotency-Key': `k${from + i}` })));
  t.ok((await send(100, 0)).every((s) => s === 201), 'both workers answer');

  process.kill(workers[0]!, 'SIGKILL');
  const replaced = await until('the worker to be replaced', async () => {
    const now = rolesOf(server.proc.pid!).http;
    return now.length === 2 && !now.includes(workers[0]!) ? now : null;
  });
  t.equal(replaced.length, 2);
  await until('the new worker to listen', async () => (await send(20, 100)).every((s) => s === 201));
  const r = await fetch(`${server.url}/v1/users/u/metrics/m`, { headers: { 'X-API-KEY': key } });
  t.equal(((await r.json()) as { current: number }).current, 120, 'every event once, across processes');

  const started = Date.now();
  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0, 'the supervisor exits 0');
  t.ok(Date.now() - started < 10_000);
  t.same(childrenOf(server.proc.pid!), [], 'no worker is left running');
});

/** One sample's value in Prometheus's text format (null when absent). */
function metric(text: string, line: RegExp): number | null {
  const m = text.split('\n').map((l) => line.exec(l)).find(Boolean);
  return m ? Number(m[1]) : null;
}

/**
 * A supervised deployment with `http` HTTP workers and a background process
 * (checked to be its only children), with what its tests read: the events
 * stored in Postgres, the shared Redis and the tenant's change stream.
 */
async function supervised(t: Test, extra: Record<string, string>, http: number) {
  const env = processDeployment(t, extra);
  const server = await spawnServer(env);
  t.teardown(() => server.proc.kill('SIGKILL'));
  const roles = await until(`${http} HTTP worker(s) and a background process`, async () => {
    const r = rolesOf(server.proc.pid!);
    return r.http.length === http && r.background.length === 1 ? r : null;
  });
  t.equal(childrenOf(server.proc.pid!).length, http + 1, 'nothing else');
  const db = new Client({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel' });
  await db.connect();
  t.teardown(() => db.end());
  const stored = async () => Number((await db.query(`SELECT count(*) AS n FROM "${env.DATABASE_SCHEMA}".events`)).rows[0].n);
  const redis = await sharedRedis(t);
  const stream = new Keys(env.REDIS_KEY_PREFIX).tenant(0).stream;
  return { env, server, roles, db, stored, redis, stream, key: env.ADMIN_API_KEY };
}

t.test('WORKERS=2: background jobs run in one separate process, reported by /metrics, drained at SIGTERM', async (t) => {
  const { env, server, roles, db, stored, redis, stream, key } = await supervised(t, { WORKERS: '2', SCHEDULER_INTERVAL_MS: '100' }, 2);
  t.equal(await post(server.url, '/admin/v1/metrics', key, [{ name: 'M', key: 'm' }]), 201);
  let sent = 0;
  const send = async (n: number) => {
    const statuses = await Promise.all(
      Array.from({ length: n }, (_, i) => post(server.url, '/v1/metrics/m/event', key, { user: { id: `u${i % 7}` }, value: 1 }, { 'Idempotency-Key': `k${sent + i}` })),
    );
    sent += n;
    return statuses.every((s) => s === 201);
  };
  t.ok(await send(60), 'the HTTP workers take events');
  await until('the events to reach Postgres', async () => (await stored()) === sent);

  // Only the background process reads the change stream: the HTTP workers never flush. (A
  // consumer is listed once it has read something; its name carries its process id.)
  const consumers = ((await redis.xinfo('CONSUMERS', stream, FLUSH_GROUP)) as string[][]).map((c) => String(c[1]));
  t.ok(consumers.length >= 1);
  t.ok(consumers.every((name) => name.startsWith(`flusher-${roles.background[0]}-`)), 'every flusher that read is in the background process');

  // The background process's numbers are in every scrape, whichever worker answers it.
  for (let i = 0; i < 3; i++) {
    const text = await until('a scrape with a scheduler run', async () => {
      const r = await get(`${server.url}/metrics`);
      return r.status === 200 && (metric(r.body, /^laurel_scheduler_runs_total\{outcome="ok"\} (\S+)$/) ?? 0) >= 1 ? r.body : null;
    });
    t.equal(metric(text, /^laurel_flusher_lag_entries (\S+)$/), 0, 'the flusher lag is reported');
    t.not(metric(text, /^laurel_flusher_lag_seconds (\S+)$/), null);
    t.not(metric(text, /^laurel_webhook_deliveries_total\{outcome="delivered"\} (\S+)$/), null);
  }
  const ready = JSON.parse((await get(`${server.url}/readyz`)).body) as { flusherLag: { entries: number } | null };
  t.same(ready.flusherLag, { entries: 0, seconds: 0 }, '/readyz reads the lag in an HTTP worker');

  // A record Postgres refuses is set aside by the background process: every scrape counts it, /readyz shows it.
  await db.query(`ALTER TABLE "${env.DATABASE_SCHEMA}".events ADD CONSTRAINT no_poison CHECK (user_id <> 'poison')`);
  t.equal(await post(server.url, '/v1/metrics/m/event', key, { user: { id: 'poison' }, value: 1 }), 201);
  const deadTotal = async () => metric((await get(`${server.url}/metrics`)).body, /^laurel_flusher_dead_letters_total (\S+)$/);
  await until('the refused record to be set aside', async () => (await deadTotal()) === 1);
  for (let i = 0; i < 3; i++) t.equal(await deadTotal(), 1, 'counted in the scrape, whichever worker answers');
  t.match(JSON.parse((await get(`${server.url}/readyz`)).body), { status: 'ok', flusher: 'degraded', deadLetters: 1 });
  await db.query(`ALTER TABLE "${env.DATABASE_SCHEMA}".events DROP CONSTRAINT no_poison`);

  // A background process that dies is replaced, and flushing goes on.
  process.kill(roles.background[0]!, 'SIGKILL');
  await until('the background process to be replaced', async () => {
    const r = rolesOf(server.proc.pid!);
    return r.background.length === 1 && r.background[0] !== roles.background[0] ? r : null;
  });
  t.ok(await send(30), 'events are taken meanwhile');
  await until('the events to reach Postgres again', async () => (await stored()) === sent);

  // SIGTERM: the workers stop, then the background process writes what is left.
  t.ok(await send(100));
  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0, 'the supervisor exits 0');
  t.same(childrenOf(server.proc.pid!), [], 'no child is left running');
  t.equal(await stored(), sent, 'every accepted event is in Postgres');
  t.equal(await redis.xlen(stream), 0, 'the stream is drained');
});

t.test('BACKGROUND=process with one worker: the HTTP process never flushes; SIGTERM drains everything', async (t) => {
  const { server, roles, stored, redis, stream, key } = await supervised(t, { BACKGROUND: 'process' }, 1);
  t.equal(await post(server.url, '/admin/v1/metrics', key, [{ name: 'M', key: 'm' }]), 201);
  const send = async (from: number, n: number) =>
    (await Promise.all(Array.from({ length: n }, (_, i) => post(server.url, '/v1/metrics/m/event', key, { user: { id: `u${i % 5}` }, value: 1 }, { 'Idempotency-Key': `k${from + i}` })))).every((s) => s === 201);
  t.ok(await send(0, 40));
  await until('the events to reach Postgres', async () => (await stored()) === 40);
  const consumers = ((await redis.xinfo('CONSUMERS', stream, FLUSH_GROUP)) as string[][]).map((c) => String(c[1]));
  t.ok(consumers.length >= 1 && consumers.every((name) => name.startsWith(`flusher-${roles.background[0]}-`)), 'every flusher that read is in the background process');
  const r = await fetch(`${server.url}/v1/users/u0/metrics/m`, { headers: { 'X-API-KEY': key } });
  t.equal(((await r.json()) as { current: number }).current, 8, 'the HTTP worker answers from Redis');

  t.ok(await send(40, 100));
  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0, 'the supervisor exits 0');
  t.same(childrenOf(server.proc.pid!), [], 'no child is left running');
  t.equal(await stored(), 140, 'every accepted event is in Postgres');
  t.equal(await redis.xlen(stream), 0, 'the stream is drained');
});
