import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import type Redis from 'ioredis';
import { loadConfig } from '../src/config';
import { masters, openRedis } from '../src/redis/client';
import { Keys } from '../src/redis/keys';
import { purgeKeys } from '../src/redis/purge';
import { CLUSTER_PORTS } from '../src/ops/redis-cluster';
import { dropSchemas, freePort, sleep } from './util';
import { seedConfig, seedUsers } from './seed';

/**
 * `npm run bench:shard`: the ceiling of one tenant on a Redis Cluster. All of
 * a tenant's keys share one hash tag, so all its events go to one shard. Runs
 * Laurel on the local cluster (`npm run redis:cluster`), seeds the bench's
 * tenant (bench/seed.ts), sends it events (random users and metrics) for
 * BENCH_SECONDS at BENCH_CONNECTIONS, and reads the shards' own accounting:
 * the CPU time the tenant's shard spent per event (all its commands: the
 * event script, config checks, and the flusher's reads and acknowledgements
 * until the backlog is drained), so the events/s that shard can take with a
 * whole core; and the calls the other shards took.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const USERS = Number(process.env.BENCH_USERS ?? 20_000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const ROOT = path.resolve(__dirname, '../..');
const SEED = `redis://127.0.0.1:${CLUSTER_PORTS[0]}`;


/** CPU seconds a redis-server has used, and its calls per command. */
async function accounting(node: Redis): Promise<{ cpu: number; calls: Map<string, { calls: number; usec: number }> }> {
  const info = String(await node.info('all'));
  const num = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  const calls = new Map<string, { calls: number; usec: number }>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) calls.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return { cpu: num('used_cpu_user') + num('used_cpu_sys'), calls };
}

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const prefix = `bench-${id}:`;
  const schema = `bench_${id}`;
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const config = loadConfig({ ...process.env, REDIS_URL: SEED, REDIS_CLUSTER: '1' });
  const cluster = openRedis(config, { lazyConnect: true });
  await cluster.connect();
  const port = await freePort();
  const proc = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: SEED, REDIS_CLUSTER: '1', REDIS_KEY_PREFIX: prefix,
      DATABASE_SCHEMA: schema, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn', WORKERS: String(WORKERS),
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; !(await fetch(`${base}/healthz`).then((r) => r.ok, () => false)); i++) {
      if (i > 300) throw new Error('laurel did not start');
      await sleep(100);
    }
    process.stderr.write(`bench: seeding the configuration and ${USERS} users\n`);
    await seedConfig(base, adminKey);
    await seedUsers(base, adminKey, USERS);

    // The default tenant is number 0; its shard is the master holding its tag's slot.
    const slot = (await cluster.call('CLUSTER', 'KEYSLOT', new Keys(prefix).tenant(0).config)) as number;
    const nodes = masters(cluster);
    const ranges = (await cluster.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const shardPort = ranges.find(([from, to]) => slot >= from && slot <= to)![2][1];
    const shard = nodes.find((n) => n.options.port === shardPort)!;

    const metrics = ['lessons', 'words', 'minutes'];
    const body = () => JSON.stringify({ user: { id: `user-${Math.floor(Math.random() * USERS)}` }, value: 1 + Math.floor(Math.random() * 20) });
    const run = (seconds: number) =>
      new Promise<autocannon.Result>((resolve, reject) =>
        autocannon(
          {
            url: base, connections: CONNECTIONS, duration: seconds,
            requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/v1/metrics/${metrics[Math.floor(Math.random() * 3)]}/event`, body: body() }) }],
            headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
          },
          (err, r) => (err ? reject(err) : resolve(r)),
        ),
      );
    // The flusher trails the load: count all of its work for these events, and none for earlier ones.
    const drained = async () => {
      for (let i = 0; ((await (await fetch(`${base}/readyz`)).json()) as { flusherLag: { entries: number } }).flusherLag.entries > 0; i++) {
        if (i > 3000) throw new Error('the backlog did not drain');
        await sleep(100);
      }
    };
    await run(3);
    await drained();
    const before = await Promise.all(nodes.map(accounting));
    const r = await run(SECONDS);
    await drained();
    const after = await Promise.all(nodes.map(accounting));

    const events = r.requests.total - r.non2xx - r.errors;
    const i = nodes.indexOf(shard);
    const cpuPerEvent = ((after[i]!.cpu - before[i]!.cpu) / events) * 1e6;
    const fcall = (k: number) => {
      const a = after[k]!.calls.get('fcall');
      const b = before[k]!.calls.get('fcall') ?? { calls: 0, usec: 0 };
      return a ? { calls: a.calls - b.calls, usec: a.usec - b.usec } : { calls: 0, usec: 0 };
    };
    const own = fcall(i);
    const others = nodes.map((_, k) => (k === i ? 0 : fcall(k).calls)).reduce((s, n) => s + n, 0);
    const lat = r.latency as unknown as Record<string, number>;
    const lines = [
      `one tenant, ${SECONDS} s at ${CONNECTIONS} connections, Laurel WORKERS=${WORKERS}, shard 127.0.0.1:${shardPort}`,
      `events/s through Laurel: ${Math.round(r.requests.average)} (p50 ${lat.p50} ms, p99 ${lat.p99} ms, ${r.non2xx + r.errors} errors)`,
      `the shard's CPU per event: ${cpuPerEvent.toFixed(1)} µs (redis-server user+sys), so about ${Math.round(1e6 / cpuPerEvent)} events/s with a whole core`,
      `the event script alone: ${(own.usec / Math.max(1, own.calls)).toFixed(1)} µs per call, wall time (${own.calls} calls); other shards: ${others} script calls`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((res) => proc.once('exit', res));
    await purgeKeys(cluster, `${prefix}*`);
    cluster.disconnect();
    await dropSchemas(config.databaseUrl, schema);
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
