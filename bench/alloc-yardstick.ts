import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { runLoad } from './load';
import { ownHeapSampler } from './util';

/**
 * `npm run bench:alloc-yardstick`: what the stack allocates per request
 * with no logic, to set Laurel's allocation per event (bench:record) beside.
 * A node:http server that parses the JSON body, makes one Redis script call
 * carrying as many bytes of arguments as Laurel's event call does and
 * answering as many (measured: 929 and 603 on the realistic configuration),
 * and answers JSON of the event response's size (1,816 bytes); then the
 * same with a bare call and a bare answer. Allocation from V8's sampling
 * heap profiler in this process, collected objects kept, over a load from wrk.
 */
const ARG_BYTES = 929;
const REPLY_BYTES = 603;
const RESPONSE_BYTES = 1816;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function measure(name: string, sized: boolean, redis: Redis, heap: Awaited<ReturnType<typeof ownHeapSampler>>): Promise<void> {
  const call = (redis as unknown as { echo_part: (k: string, a: string, n: number) => Promise<string> }).echo_part.bind(redis);
  const payload = 'x'.repeat(ARG_BYTES);
  // A response object of the event response's size (with a six-digit n), serialised per request.
  const fields: Record<string, string> = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, 'v'.repeat(20)]));
  fields.field0 += 'v'.repeat(RESPONSE_BYTES - JSON.stringify({ ...fields, reply: REPLY_BYTES, n: 100_000 }).length);
  let served = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { user?: { id: string } };
      void call(`bench:yardstick:${body.user?.id ?? ''}`, sized ? payload : '', sized ? REPLY_BYTES : 0).then((reply) => {
        const out = JSON.stringify(sized ? { ...fields, reply: reply.length, n: ++served } : { n: ++served });
        res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
        res.end(out);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scenario = { method: 'POST' as const, path: '/v1/metrics/{metric}/event', body: 'event' as const };
  await runLoad('warm-up', scenario, { url, seconds: 2, connections: 32, users: 20_000, tag: 'warm' });
  served = 0;
  await heap.start();
  const cpu0 = process.cpuUsage();
  await runLoad(name, scenario, { url, seconds: SECONDS, connections: 32, users: 20_000, tag: 'load' });
  const cpu = process.cpuUsage(cpu0);
  const { bytes } = await heap.stop();
  await new Promise((r) => server.close(r));
  process.stdout.write(`${name}: ${served} requests; per request ${(bytes / served / 1024).toFixed(1)} KB allocated, ${Math.round((cpu.user + cpu.system) / served)} µs CPU\n`);
}

async function main(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  redis.defineCommand('echo_part', { numberOfKeys: 1, lua: "redis.call('EXISTS', KEYS[1]) return string.rep('r', tonumber(ARGV[2]))" });
  const heap = await ownHeapSampler();
  try {
    await measure(`node:http + ioredis, Laurel's event sizes (${ARG_BYTES} B of arguments, ${REPLY_BYTES} B reply, ${RESPONSE_BYTES} B response)`, true, redis, heap);
    await measure('node:http + ioredis, bare call and answer', false, redis, heap);
  } finally {
    heap.close();
    redis.disconnect();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
