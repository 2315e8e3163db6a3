import t from 'tap';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Keys } from '../src/redis/keys';
import type { Tenant } from '../src/store/tenants';
import { clusterNodeArgs, formCluster } from '../src/ops/redis-cluster';
import { startServer } from './helpers/harness';
import { freePort, until } from './helpers/process';

// A private cluster of three masters on ports of its own, so a shard can be
// killed without touching the Redis the rest of the suite shares; it runs
// in `npm test` and `npm run test:cluster` alike.
const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-cluster-'));
const nodes: { port: number; args: string[]; proc: ChildProcess }[] = [];
const startNode = (n: { args: string[] }) => spawn('redis-server', n.args, { stdio: 'ignore' });
let admin: Redis;

t.before(async () => {
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    // Every write on disk before it is acknowledged: a killed shard comes back with all it had.
    const args = [...clusterNodeArgs(port, dir, 'always'), '--cluster-port', String(await freePort())];
    nodes.push({ port, args, proc: startNode({ args }) });
  }
  await formCluster(nodes.map((n) => n.port));
  admin = new Redis(nodes[0]!.port, '127.0.0.1');
});

t.teardown(() => {
  admin?.disconnect();
  for (const n of nodes) n.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The port of the master holding a key's slot. */
async function shardOf(key: string): Promise<number> {
  const slot = (await admin.call('CLUSTER', 'KEYSLOT', key)) as number;
  const ranges = (await admin.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  return ranges.find(([from, to]) => slot >= from && slot <= to)![2][1];
}

t.test("keys spread tenants, and deployments' tenants of the same number, over the shards", async (t) => {
  const ports = nodes.map((n) => n.port).sort();
  const tenants = new Set(await Promise.all(Array.from({ length: 12 }, (_, slot) => shardOf(new Keys('laurel:').tenant(slot).config))));
  t.same([...tenants].sort(), ports, 'the tenants of one deployment');
  // Each test file has its own prefix and its default tenant is number 0.
  const deployments = new Set(await Promise.all(Array.from({ length: 12 }, (_, i) => shardOf(new Keys(`test-${i}:`).tenant(0).config))));
  t.same([...deployments].sort(), ports, 'tenant 0 of different deployments');
});

t.test('tenants on every shard are served; a shard down takes only its own tenants, and comes back with all it had', async (t) => {
  // A fixed prefix and fresh tenant numbers, so which tenant lands where is the same on every run.
  const s = await startServer(t, { REDIS_URL: `redis://127.0.0.1:${nodes[0]!.port}`, REDIS_CLUSTER: '1', REDIS_KEY_PREFIX: 'cluster-test:' });
  const created = await s.call('POST', '/admin/v1/tenants', { body: Array.from({ length: 8 }, (_, i) => ({ customerId: `c${i}`, name: `C${i}` })) });
  t.equal(created.status, 201);
  // The first tenant (in flush order) on each shard.
  const byShard = new Map<number, Tenant>();
  for (const tenant of await s.app.ctx.tenants.all()) {
    const port = await shardOf(s.app.ctx.keys.tenant(tenant.slot).config);
    if (!byShard.has(port)) byShard.set(port, tenant);
  }
  t.equal(byShard.size, 3, 'tenants on all three shards');
  const header = (x: Tenant) => x.customerId ?? undefined;
  for (const x of byShard.values()) {
    await s.metrics(['m'], header(x));
    t.equal((await s.event('m', { user: { id: 'u' }, value: 1 }, { tenant: header(x) })).status, 201, 'the library is on every master');
  }

  // Take down the shard of the first tenant the flusher visits.
  const [downPort, down] = [...byShard.entries()].sort((a, b) => a[1].slot - b[1].slot)[0]!;
  const node = nodes.find((n) => n.port === downPort)!;
  node.proc.kill('SIGKILL');
  await new Promise((r) => node.proc.once('exit', r));
  const refused = await s.event('m', { user: { id: 'u' }, value: 1 }, { tenant: header(down) });
  t.equal(refused.status, 503, "the down shard's tenant is refused");
  t.equal(refused.headers.get('retry-after'), '1');
  for (const [port, x] of byShard) {
    if (port === downPort) continue;
    t.equal((await s.event('m', { user: { id: 'w' }, value: 2 }, { tenant: header(x) })).status, 201, 'a tenant on another shard is served');
    // The flusher still writes the tenants after the one it cannot reach.
    await until('the event in postgres', async () => {
      const r = await s.app.ctx.db.query(`SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND user_id = 'w'`, [x.id]);
      return r.rows[0].n === 1;
    });
  }

  node.proc = startNode(node);
  await until('the shard to serve again', async () => (await s.event('m', { user: { id: 'u' }, value: 1 }, { tenant: header(down) })).status === 201);
  t.equal((await s.call('GET', '/v1/users/u/metrics/m', { tenant: header(down) })).body.current, 2, 'what it had, plus the one event after; the refused one was not applied');
  await s.drain();
});
