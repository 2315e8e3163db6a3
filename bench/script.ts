import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/observability/log';
import { systemClock } from '../src/clock';
import { startApp } from '../src/app';
import { seedConfig, seedUsers } from './seed';
import { benchConfig, dropSchemas, ownRedis, postgresCpu, sleep } from './util';

/**
 * `node dist/bench/script.js`: what one event costs inside Redis and in its
 * flush to Postgres, apart from HTTP and the load generator. Sends events one
 * at a time to an in-process server on a Redis of its own and reads Redis's
 * own accounting: time per event call, commands per call, bytes of arguments
 * sent per call. The flusher is held back meanwhile; then one drain writes
 * the records to Postgres, and the CPU time Postgres and this process spent
 * on it, and the WAL it wrote, are reported per record. The figures move
 * little with the machine's other load, so they show what a change to the
 * Lua, its arguments or the flusher's statements buys.
 */
const USERS = Number(process.env.BENCH_USERS ?? 20_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 4_000);

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-script-'));
  // BENCH_CALLGRIND=file: Redis runs under callgrind, which counts its instructions during the events only.
  const callgrind = process.env.BENCH_CALLGRIND;
  const valgrind = callgrind ? ['valgrind', '--tool=callgrind', `--callgrind-out-file=${callgrind}`] : [];
  const { port, proc: redisProc, url: redisUrl, redis, ready } = await ownRedis(dir, valgrind);
  let monitor: ReturnType<typeof spawn> | undefined;
  const config = benchConfig(id, { REDIS_URL: redisUrl });
  try {
    await ready();
    // BENCH_MONITOR=file: every command Redis runs, for bench/lua-replay.lua (seeding included: the replay needs it).
    const monitorFile = process.env.BENCH_MONITOR;
    if (monitorFile) {
      monitor = spawn('sh', ['-c', `exec redis-cli -p ${port} MONITOR > "${monitorFile}"`], { stdio: 'ignore' });
      await sleep(300);
    }
    // No background role: nothing flushes until the drain below.
    const app = await startApp(config, systemClock, createLogger(config.logLevel), { http: true, background: false });
    const base = `http://127.0.0.1:${app.port}`;
    const key = config.adminApiKey!;
    await seedConfig(base, key);
    await seedUsers(base, key, USERS);
    await app.flusher.drain();

    let bytes = 0;
    let calls = 0;
    const scripts = app.ctx.engine;
    const run = scripts.fcall.bind(scripts);
    scripts.fcall = (name, keys, args) => {
      if (name === 'event') {
        calls++;
        for (const a of [...keys, ...args]) bytes += Buffer.byteLength(String(a));
      }
      return run(name, keys, args);
    };
    await redis.config('RESETSTAT');
    if (callgrind) spawnSync('callgrind_control', ['-z', String(redisProc.pid)]);
    const metrics = ['lessons', 'words', 'minutes'];
    // A fixed sequence of users, so two runs do the same work.
    let seed = 42;
    const nextUser = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % USERS;
    const started = process.hrtime.bigint();
    for (let i = 0; i < EVENTS; i++) {
      const headers: Record<string, string> = { 'X-API-KEY': key, 'Content-Type': 'application/json' };
      if (i % 2) headers['Idempotency-Key'] = `k-${i}`;
      const r = await fetch(`${base}/v1/metrics/${metrics[i % 3]}/event`, {
        method: 'POST', headers, body: JSON.stringify({ user: { id: `user-${nextUser()}` }, value: 1 + (i % 20) }),
      });
      if (r.status !== 201) throw new Error(`event: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    }
    if (callgrind) spawnSync('callgrind_control', ['-d', String(redisProc.pid)]);
    const wall = Number(process.hrtime.bigint() - started) / 1e6 / EVENTS;
    const stats = String(await redis.info('commandstats'));
    const row = (name: string) => {
      const m = new RegExp(`cmdstat_${name}:calls=(\\d+),usec=(\\d+)`).exec(stats);
      return m ? { calls: Number(m[1]), usec: Number(m[2]) } : { calls: 0, usec: 0 };
    };
    if (process.env.BENCH_COMMANDSTATS) process.stderr.write(stats);
    const fcall = row('fcall');
    // Commands run inside the scripts (the flusher's stream reads and deletes are not).
    const inner = [...stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)/g)]
      .filter(([, n]) => !['fcall', 'xreadgroup', 'xack', 'xdel', 'multi', 'exec', 'xautoclaim', 'info', 'config|resetstat', 'ping', 'publish'].includes(n!))
      .reduce((s, [, , c, u]) => ({ calls: s.calls + Number(c), usec: s.usec + Number(u) }), { calls: 0, usec: 0 });
    const lines = [
      `events (sequential)           ${EVENTS}`,
      `Redis µs per event call       ${(fcall.usec / fcall.calls).toFixed(1)}`,
      `  of which in commands        ${(inner.usec / fcall.calls).toFixed(1)} (${(inner.calls / fcall.calls).toFixed(1)} commands)`,
      `argument bytes per call       ${Math.round(bytes / calls)}`,
      `round trip per event (ms)     ${wall.toFixed(3)}`,
    ];
    // The flush of the events' records, measured from both ends.
    const db = app.ctx.db;
    const walAt = async () => (await db.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0]!.l;
    const wal0 = await walAt();
    const pg0 = await postgresCpu(db);
    const node0 = process.cpuUsage();
    const flushStarted = process.hrtime.bigint();
    await app.flusher.drain();
    const flushMs = Number(process.hrtime.bigint() - flushStarted) / 1e6;
    const nodeUs = process.cpuUsage(node0);
    const pgUs = (await postgresCpu(db)) - pg0;
    const walBytes = Number((await db.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS b', [wal0])).rows[0]!.b);
    const perRecord = (x: number) => (x / EVENTS).toFixed(1);
    lines.push(
      `flush: records per second     ${Math.round(EVENTS / (flushMs / 1000))}`,
      `  Postgres CPU µs per record  ${Number.isNaN(pgUs) ? 'n/a (no /proc)' : perRecord(pgUs)}`,
      `  Node CPU µs per record      ${perRecord(nodeUs.user + nodeUs.system)}`,
      `  WAL bytes per record        ${Math.round(walBytes / EVENTS)}`,
    );
    if (callgrind) {
      // Everything Redis did while the events ran (the flusher's reads included), per event.
      const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(`${callgrind}.1`, 'utf8'));
      lines.push(`Redis instructions per event  ${totals ? Math.round(Number(totals[1]) / EVENTS) : 'n/a'}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    await app.close();
  } finally {
    redis.disconnect();
    monitor?.kill('SIGTERM');
    redisProc.kill('SIGTERM');
    await dropSchemas(config.databaseUrl, config.databaseSchema);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
