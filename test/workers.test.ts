import t from 'tap';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { processDeployment, spawnServer, until } from './helpers/process';


/** A request on a fresh connection (so the kernel may hand it to any worker). */
function post(url: string, path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(`${url}${path}`, {
      method: 'POST',
      agent: false,
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data), Connection: 'close', ...headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Child process ids (ps exits 1 when there are none). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((s) => Number(s.trim())).filter(Boolean);
  } catch {
    return [];
  }
}

t.test('WORKERS=2: two processes share the port; a dead worker is replaced; SIGTERM stops all', async (t) => {
  const env = processDeployment(t, { WORKERS: '2' });
  const server = await spawnServer(env);
  const workers = await until('two workers', async () => (childrenOf(server.proc.pid!).length === 2 ? childrenOf(server.proc.pid!) : null));
  const key = env.ADMIN_API_KEY;
  t.equal(await post(server.url, '/admin/v1/metrics', key, [{ name: 'M', key: 'm' }]), 201);

  const send = (n: number, from: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => post(server.url, '/v1/metrics/m/event', key, { user: { id: 'u' }, value: 1 }, { 'Idempotency-Key': `k${from + i}` })));
  t.ok((await send(100, 0)).every((s) => s === 201), 'both workers answer');

  process.kill(workers[0]!, 'SIGKILL');
  const replaced = await until('the worker to be replaced', async () => {
    const now = childrenOf(server.proc.pid!);
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
