import t from 'tap';
import { startServer, TestServer } from './helpers/harness';
import { Relay } from './helpers/proxy';
import { freshGet as get, processDeployment, spawnServer, until } from './helpers/process';

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Samples of one metric in Prometheus's text format. */
function samples(text: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the sample whose labels include `want` (0 when absent: counters start there). */
function value(text: string, name: string, want: Record<string, string> = {}): number {
  return samples(text, name).find((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
}

async function scrape(s: TestServer): Promise<string> {
  const r = await fetch(`${s.url}/metrics`);
  if (r.status !== 200) throw new Error(`scrape failed: ${r.status}`);
  return r.text();
}

t.test('GET /metrics: requests by route pattern and status, latencies, script calls', async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  for (const id of ['a', 'b']) await s.call('POST', '/v1/users', { body: { id } });
  // The first event of a config version also hands Redis the metric's program (a second call).
  t.equal((await s.event('m', { user: { id: 'b' }, value: 1 })).status, 201);

  const res = await fetch(`${s.url}/metrics`);
  t.equal(res.status, 200, 'no API key needed');
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const before = await res.text();

  const user = { method: 'GET', route: '/v1/users/:id' };
  for (const id of ['a', 'b', 'a']) t.equal((await s.call('GET', `/v1/users/${id}`)).status, 200);
  t.equal((await s.call('GET', '/v1/users/nobody')).status, 404);
  t.equal((await s.call('GET', '/nowhere')).status, 404);
  t.equal((await s.event('m', { user: { id: 'a' }, value: 1 })).status, 201);
  const after = await scrape(s);

  const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
  t.equal(delta('laurel_http_requests_total', { ...user, status: '200' }), 3, 'three reads of two users count under one pattern');
  t.equal(delta('laurel_http_requests_total', { ...user, status: '404' }), 1);
  t.equal(delta('laurel_http_requests_total', { route: 'unmatched', status: '404' }), 1);
  t.equal(delta('laurel_http_requests_total', { method: 'POST', route: '/v1/metrics/:key/event', status: '201' }), 1);
  const routes = new Set(samples(after, 'laurel_http_requests_total').map((x) => x.labels.route));
  t.notOk([...routes].some((r) => /\/users\/(a|b|nobody)$|nowhere/.test(r!)), 'never a raw path as a label');

  t.equal(delta('laurel_http_request_duration_seconds_count', user), 4, 'every answer is timed');
  t.equal(
    value(after, 'laurel_http_request_duration_seconds_bucket', { ...user, le: '+Inf' }),
    value(after, 'laurel_http_request_duration_seconds_count', user),
  );
  t.ok(delta('laurel_http_request_duration_seconds_sum', user) > 0);
  t.equal(delta('laurel_redis_script_duration_seconds_count', { script: 'event' }), 1, 'one event, one script call');
  t.ok(delta('laurel_redis_script_duration_seconds_count', { script: 'user_read' }) >= 4);

  for (const outcome of ['delivered', 'retry', 'dead']) {
    t.equal(samples(after, 'laurel_webhook_deliveries_total').filter((x) => x.labels.outcome === outcome).length, 1, `webhook ${outcome} is reported`);
  }
  t.ok(samples(after, 'process_cpu_user_seconds_total').length === 1, 'with the process defaults');
});

t.test('flusher lag shows while Postgres is away', async (t) => {
  const pg = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel');
  const relay = new Relay(Number(pg.port || 5432));
  const port = await relay.start();
  t.teardown(() => relay.cut());
  pg.port = String(port);
  const s = await startServer(t, { DATABASE_URL: pg.toString() });
  await s.metrics(['m']);
  await s.drain();
  t.equal(value(await scrape(s), 'laurel_flusher_lag_entries'), 0);

  await relay.cut();
  for (let i = 0; i < 3; i++) await s.event('m', { user: { id: 'u' }, value: 1 });
  const behind = await scrape(s);
  t.equal(value(behind, 'laurel_flusher_lag_entries'), 3, 'three records wait');
  t.ok(samples(behind, 'laurel_flusher_lag_seconds').length === 1);
  await relay.restore();
  await s.drain();
  t.equal(value(await scrape(s), 'laurel_flusher_lag_entries'), 0, 'and none once written');
});

t.test('scheduler runs are counted', async (t) => {
  const s = await startServer(t, { SCHEDULER_INTERVAL_MS: '50' });
  const runs = await until('a scheduler run', async () => value(await scrape(s), 'laurel_scheduler_runs_total', { outcome: 'ok' }));
  t.ok(runs >= 1);
});

t.test('METRICS_TOKEN protects the endpoint', async (t) => {
  const s = await startServer(t, { METRICS_TOKEN: 'sekret' });
  const none = await fetch(`${s.url}/metrics`);
  t.equal(none.status, 401);
  t.equal(none.headers.get('www-authenticate'), 'Bearer');
  t.type(((await none.json()) as { error: string }).error, 'string');
  t.equal((await fetch(`${s.url}/metrics`, { headers: { Authorization: 'Bearer wrong' } })).status, 401);
  t.equal((await fetch(`${s.url}/metrics`, { headers: { 'X-API-KEY': s.adminKey } })).status, 401, 'an API key is not the token');
  t.equal((await fetch(`${s.url}/metrics`, { headers: { Authorization: 'Bearer sekret' } })).status, 200);
});

t.test('X-Request-Id is echoed when acceptable, else made up', async (t) => {
  const s = await startServer(t);
  const given = await s.call('GET', '/v1/users/x', { headers: { 'X-Request-Id': 'trace-123/abc' } });
  t.equal(given.headers.get('x-request-id'), 'trace-123/abc');
  const a = (await s.call('GET', '/healthz', { key: null })).headers.get('x-request-id');
  const b = (await s.call('GET', '/nowhere', { key: null })).headers.get('x-request-id');
  t.ok(a && b && a !== b, 'every response has one, each different');
  for (const bad of ['x'.repeat(129), 'has space', '']) {
    const r = await s.call('GET', '/healthz', { key: null, headers: { 'X-Request-Id': bad } });
    t.ok(r.headers.get('x-request-id') && r.headers.get('x-request-id') !== bad, `"${bad.slice(0, 10)}…" is replaced`);
  }
  t.equal((await s.call('GET', '/healthz', { key: null, headers: { 'X-Request-Id': 'y'.repeat(128) } })).headers.get('x-request-id'), 'y'.repeat(128));
});


t.test('WORKERS=2: a scrape reports every worker; nothing is logged per request at info', async (t) => {
  const env = processDeployment(t, { WORKERS: '2', LOG_LEVEL: 'info' });
  const server = await spawnServer(env, { captureLogs: true });
  t.teardown(() => server.proc.kill('SIGTERM'));
  const key = { 'X-API-KEY': env.ADMIN_API_KEY };
  const n = 40;
  for (let i = 0; i < n; i++) t.equal((await get(`${server.url}/v1/users/nobody`, key)).status, 404);
  for (let i = 0; i < 5; i++) {
    const text = (await get(`${server.url}/metrics`)).body;
    t.equal(value(text, 'laurel_http_requests_total', { route: '/v1/users/:id', status: '404' }), n, `scrape ${i + 1} counts all ${n}`);
  }
  const lines = server.logs().split('\n').filter(Boolean);
  t.ok(lines.length > 0, 'start-up is logged');
  // Info lines, and the start-up warning of a Postgres without autovacuum (as on the test machine).
  for (const l of lines) t.match(JSON.parse(l), { level: /^(info|warn)$/, time: String, msg: String, pid: Number });
  t.notOk(lines.some((l) => JSON.parse(l).level === 'warn' && !/autovacuum/.test(l)), 'no other warning');
  t.notOk(lines.some((l) => /request/i.test(l)), 'no line per request');
  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0);
});

t.test('LOG_LEVEL=debug: one line per request, with its id', async (t) => {
  const env = processDeployment(t, { LOG_LEVEL: 'debug' });
  const server = await spawnServer(env, { captureLogs: true });
  t.teardown(() => server.proc.kill('SIGTERM'));
  t.equal((await get(`${server.url}/v1/users/nobody`, { 'X-API-KEY': env.ADMIN_API_KEY, 'X-Request-Id': 'trace-42' })).status, 404);
  const line = await until('the request line', async () =>
    server.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.requestId === 'trace-42'),
  );
  t.match(line, { level: 'debug', msg: 'request', method: 'GET', route: '/v1/users/:id', status: 404, ms: Number });
  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0);
});
