/**
 * Laurel behind a real nginx (Debian's nginx-light; .ci/run installs it)
 * configured as README.md advises: a plain `proxy_pass` (which speaks
 * HTTP/1.0 to Laurel, nginx's default) and the WebSocket location with the
 * upgrade headers. Then ApacheBench (apache2-utils, HTTP/1.0) against an
 * event route, with and without keep-alive.
 */
import t, { type Test } from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer } from './helpers/harness';
import { liveUrl, openLive } from './helpers/live-client';
import { freePort, until } from './helpers/process';

const README = path.resolve(__dirname, '../../README.md');

/** The nginx `location` blocks README.md documents, with Laurel's address filled in. */
function documentedLocations(upstream: string): string {
  const readme = readFileSync(README, 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no nginx snippet');
  return block[1]!.replaceAll('127.0.0.1:8080', upstream);
}

async function startNginx(t: Test, upstream: string): Promise<string> {
  const prefix = mkdtempSync(path.join(tmpdir(), 'laurel-nginx-'));
  const port = await freePort();
  const snippet = documentedLocations(upstream);
  // The snippet's `map` belongs in the http block, its `location`s in a server block.
  const map = /^map [\s\S]*?^}\n/m.exec(snippet)?.[0] ?? '';
  const locations = snippet.replace(map, '');
  writeFileSync(path.join(prefix, 'nginx.conf'), `
daemon off;
master_process off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  ${map}
  server {
    listen 127.0.0.1:${port};
    ${locations}
  }
}
`);
  const nginx = spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => nginx.once('exit', resolve));
  nginx.once('error', (err) => t.fail(`nginx could not start (apt-get install nginx-light): ${err.message}`));
  t.teardown(async () => {
    nginx.kill('SIGQUIT');
    await exited;
    rmSync(prefix, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  await until('nginx to answer', async () => (await fetch(`${url}/healthz`)).ok);
  return url;
}

function ab(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('ab', args, { maxBuffer: 1 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`ab failed: ${stderr || err.message}`)) : resolve(stdout))),
  );
}

t.test('behind nginx with the documented configuration', async (t) => {
  const s = await startServer(t);
  const nginx = await startNginx(t, new URL(s.url).host);
  const key = s.adminKey;
  const call = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(`${nginx}${p}`, {
      method, headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };

  t.equal((await call('POST', '/admin/v1/metrics', [{ name: 'Words', key: 'words' }])).status, 201);
  const live = await openLive(liveUrl(nginx), { 'X-API-KEY': key });
  t.teardown(() => live.close());
  live.send({ subscribe: 'user:u1' });
  await live.next((m) => m.subscribed === 'user:u1');

  const first = await call('POST', '/v1/metrics/words/event', { user: { id: 'u1' }, value: 3 }, { 'Idempotency-Key': 'once' });
  t.equal(first.status, 201, 'an event');
  t.match(first.body, { total: 3, idempotentReplayed: false });
  const replay = await call('POST', '/v1/metrics/words/event', { user: { id: 'u1' }, value: 3 }, { 'Idempotency-Key': 'once' });
  t.equal(replay.status, 202, 'an idempotent replay');
  t.match(replay.body, { total: 3, idempotentReplayed: true, eventId: first.body.eventId });
  const invalid = await call('POST', '/v1/metrics/words/event', { user: { id: 'u1' }, value: 'three' });
  t.equal(invalid.status, 422);
  t.match(invalid.body.error, /body\.value/);
  const read = await call('GET', '/v1/users/u1/metrics/words');
  t.equal(read.status, 200, 'a read');
  t.equal(read.body.current, 3, 'the replay counted once');

  const update = await live.next((m) => m.subscription === 'user:u1' && m.type === 'metric.changed');
  t.match(update, { seq: 1, total: 3 }, 'a live update through the proxied WebSocket');
});

t.test('ab -n 2000 -c 20 against an event route: no failed request', async (t) => {
  const s = await startServer(t);
  await s.metrics(['words']);
  const dir = mkdtempSync(path.join(tmpdir(), 'laurel-ab-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const body = path.join(dir, 'event.json');
  writeFileSync(body, JSON.stringify({ user: { id: 'u1' }, value: 1 }));
  const target = `${s.url}/v1/metrics/words/event`;
  for (const keepAlive of [[], ['-k']]) {
    // -l: answers differ in length (each carries the running total), which ab would otherwise count as failures.
    const out = await ab(['-q', '-l', '-n', '2000', '-c', '20', ...keepAlive, '-p', body, '-T', 'application/json', '-H', `X-API-KEY: ${s.adminKey}`, target]);
    const label = keepAlive.length ? 'with keep-alive' : 'a connection per request';
    t.match(out, /^Complete requests:\s+2000$/m, label);
    t.match(out, /^Failed requests:\s+0$/m, label);
    t.notMatch(out, /Non-2xx responses/, `${label}: every answer a 201`);
  }
  const total = await s.call('GET', '/v1/users/u1/metrics/words');
  t.equal(total.body.current, 4000, 'every event counted');
});
