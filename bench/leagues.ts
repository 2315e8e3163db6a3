import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/observability/log';
import { ManualClock } from '../src/clock';
import { startApp } from '../src/app';
import { finalizeLeagues } from '../src/scheduler/leagues';
import { api } from './seed';
import { benchConfig, dropSchemas, ownRedis } from './util';

/**
 * `npm run bench:leagues`: the three figures of docs/leagues.md.
 *  1. An event that moves a league against the same event without one:
 *     events/s (64 in flight) and Redis µs per event call, in alternating runs.
 *  2. Finalizing a run of BENCH_PARTICIPANTS (default 100,000) in cohorts of
 *     30, and the p99 of events sent meanwhile against their steady p99.
 *  3. Redis bytes per participant of the live run: MEMORY USAGE of every
 *     league key, plus the growth of a sample of user hashes when they join.
 * On a Redis of its own, with the flusher held back (drained between phases).
 */
const PARTICIPANTS = Number(process.env.BENCH_PARTICIPANTS ?? 100_000);
const PAIR_EVENTS = Number(process.env.BENCH_PAIR_EVENTS ?? 5_000);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-leagues-'));
  const { proc: redisProc, url: redisUrl, redis, ready } = await ownRedis(dir);
  const config = benchConfig(id, { REDIS_URL: redisUrl, MAX_BACKLOG: '10000000' });
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
  try {
    await ready();
    const app = await startApp(config, clock, createLogger(config.logLevel), { http: true, background: false });
    const base = `http://127.0.0.1:${app.port}`;
    const key = config.adminApiKey!;
    const metrics = await api(base, key, 'POST', '/admin/v1/metrics', [{ key: 'plain', name: 'Plain' }, { key: 'ranked', name: 'Ranked' }]);
    const ranked = metrics.created.find((m: { key: string }) => m.key === 'ranked').id as string;
    const tiers = ['bronze', 'silver', 'gold', 'platinum', 'diamond'].map((k, i, all) => ({ key: k, name: k, promote: i < all.length - 1 ? 7 : 0, relegate: i > 0 ? 5 : 0 }));
    const made = await api(base, key, 'POST', '/admin/v1/leagues', [{ key: 'weekly', name: 'Weekly', rankBy: 'metric', metricId: ranked, cadence: 'weekly', timeZone: 'UTC', cohortSize: 30, tiers, status: 'inactive' }]);
    const leagueId = made.created[0].id as string;

    /** `n` events, `inflight` at a time; their latencies (ms). */
    const send = async (n: number, inflight: number, body: (i: number) => [string, unknown], stop?: () => boolean): Promise<number[]> => {
      const lat: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < n && !stop?.()) {
          const i = next++;
          const [metric, b] = body(i);
          const t0 = performance.now();
          const r = await fetch(`${base}/v1/metrics/${metric}/event`, { method: 'POST', headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: JSON.stringify(b) });
          if (r.status !== 201) throw new Error(`event: ${r.status} ${await r.text()}`);
          await r.arrayBuffer();
          lat.push(performance.now() - t0);
        }
      };
      await Promise.all(Array.from({ length: inflight }, worker));
      return lat;
    };
    // Bytes of the league's keys, plus what the place field adds to a sample of user hashes.
    const SAMPLE = Math.min(2000, PARTICIPANTS);
    const userBytes = async () => {
      const pipe = redis.pipeline();
      for (let i = 0; i < SAMPLE; i++) pipe.call('MEMORY', 'USAGE', app.ctx.keys.tenant(0).user(`u${i}`), 'SAMPLES', '0');
      return ((await pipe.exec()) ?? []).reduce((sum, [, v]) => sum + Number(v ?? 0), 0) / SAMPLE;
    };
    const leagueBytes = async () => {
      let total = 0;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${app.ctx.keys.tenant(0).leaguePrefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) {
          const pipe = redis.pipeline();
          for (const k of keys) pipe.call('MEMORY', 'USAGE', k, 'SAMPLES', '0');
          total += ((await pipe.exec()) ?? []).reduce((sum, [, v]) => sum + Number(v ?? 0), 0);
        }
      } while (cursor !== '0');
      return total;
    };
    const fcallUs = async () => {
      const m = /cmdstat_fcall:calls=(\d+),usec=(\d+)/.exec(await redis.info('commandstats'));
      return m ? Number(m[2]) / Number(m[1]) : NaN;
    };
    const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? NaN;
    const lines: string[] = [];

    // 3. Memory: the users first hold the metric (league inactive), then all join.
    await send(PARTICIPANTS, 64, (i) => ['ranked', { user: { id: `u${i}` }, value: 1 }]);
    await app.flusher.drain();
    await api(base, key, 'PATCH', '/admin/v1/leagues', [{ id: leagueId, status: 'active' }]);
    const user0 = await userBytes();
    await redis.config('RESETSTAT');
    const joinStarted = performance.now();
    await send(PARTICIPANTS, 64, (i) => ['ranked', { user: { id: `u${i}` }, value: 1 + ((i * 7919) % 1000) }]);
    const joinS = (performance.now() - joinStarted) / 1000;
    const joinUs = await fcallUs();
    await app.flusher.drain();
    const perUser = (await userBytes()) - user0;
    const keysPer = (await leagueBytes()) / PARTICIPANTS;
    lines.push(`joins: ${PARTICIPANTS} first events, ${Math.round(PARTICIPANTS / joinS)} events/s, Redis ${joinUs.toFixed(1)} µs per event call`);
    lines.push(`Redis bytes per participant   ${(keysPer + perUser).toFixed(1)} (league keys ${keysPer.toFixed(1)}, place field in the user hash ${perUser.toFixed(1)}; MEMORY USAGE)`);

    // 1. With and without a league, alternating.
    for (let p = 0; p < PAIRS; p++) {
      for (const metric of ['plain', 'ranked']) {
        await redis.config('RESETSTAT');
        const t0 = performance.now();
        await send(PAIR_EVENTS, 64, (i) => [metric, { user: { id: `u${(i * 31 + p) % PARTICIPANTS}` }, value: 1 }]);
        const s = (performance.now() - t0) / 1000;
        lines.push(`pair ${p + 1} ${metric === 'plain' ? 'without league' : 'with league   '}  ${Math.round(PAIR_EVENTS / s)} events/s, Redis ${(await fcallUs()).toFixed(1)} µs per event call`);
        await app.flusher.drain();
      }
    }

    // 2. Finalizing the run, under a steady load of events.
    const steady = await send(3000, 8, (i) => ['plain', { user: { id: `u${i}` }, value: 1 }]);
    clock.set('2026-03-16T00:00:10Z');
    const tenant = (await app.ctx.tenants.all())[0]!;
    let finalizing = true;
    const during: Promise<number[]> = send(Number.MAX_SAFE_INTEGER, 8, (i) => ['plain', { user: { id: `u${i % PARTICIPANTS}` }, value: 1 }], () => !finalizing);
    const f0 = performance.now();
    await finalizeLeagues(app.ctx, tenant);
    const finalizeS = (performance.now() - f0) / 1000;
    finalizing = false;
    const meanwhile = await during;
    const runs = await app.ctx.db.query('SELECT cohorts, participants, promoted, relegated FROM league_runs');
    lines.push(`finalize: ${JSON.stringify(runs.rows[0])} in ${finalizeS.toFixed(2)} s`);
    lines.push(`event p99 steady ${p99(steady).toFixed(1)} ms, during finalization ${p99(meanwhile).toFixed(1)} ms (${meanwhile.length} events)`);
    process.stdout.write(`${lines.join('\n')}\n`);
    await app.close();
  } finally {
    redis.disconnect();
    redisProc.kill('SIGTERM');
    await dropSchemas(config.databaseUrl, config.databaseSchema);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
