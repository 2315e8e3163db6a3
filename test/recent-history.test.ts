import t from 'tap';
import { purgePrefix, sharedRedis, startServer, TestServer } from './helpers/harness';
import { Relay } from './helpers/proxy';
import { decodeRecent } from '../src/domain/recent-history';

// The reads a client makes right after an event (recent awards, the streak
// with its recent periods, rank with its recent history) answer from the
// user's recent history in Redis: no flush, no Postgres. Deeper history
// still comes from Postgres, and both agree.

const PG = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel');

async function configure(s: TestServer) {
  const { m } = await s.metrics(['m']);
  const r = await s.call('POST', '/admin/v1/points', {
    body: [
      {
        key: 'xp', name: 'XP',
        boosts: [{ name: 'x2', start: '2026-03-12', end: '2026-03-12', multiplier: 2 }],
        triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 10, status: 'active' }, { type: 'user_creation', points: 5, status: 'active' }],
      },
      { key: 'gems', name: 'Gems', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 2, points: 1, status: 'active' }] },
    ],
  });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } });
  await s.call('POST', '/admin/v1/leaderboards', {
    body: [
      { key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', status: 'active' },
      { key: 'daily', name: 'Daily', rankBy: 'points', pointsSystemId: (await s.call('GET', '/admin/v1/points')).body.find((p: { key: string }) => p.key === 'xp').id, start: '2026-03-01', runUnit: 'day', runInterval: 1, status: 'active' },
    ],
  });
}

/** laurel_read_flushes_total, all scopes. */
async function readFlushes(s: TestServer): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  return [...text.matchAll(/^laurel_read_flushes_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

const READS = (u: string) => [
  `/v1/users/${u}/points/xp`, `/v1/users/${u}/points/gems`, `/v1/users/${u}/streak`,
  `/v1/users/${u}/leaderboards/top`, `/v1/users/${u}/leaderboards/daily`,
];

async function readAll(s: TestServer, paths: string[]) {
  const out: Record<string, unknown> = {};
  for (const p of paths) {
    const r = await s.call('GET', p);
    out[p] = [r.status, r.body];
  }
  return out;
}

/** A few days of events for `user` (one day boosted), with others on the boards. */
async function activity(s: TestServer, user: string) {
  for (const [i, day] of ['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13'].entries()) {
    s.clock.set(`${day}T10:00:00Z`);
    // Their local date is the next day (UTC+14).
    t.equal((await s.event('m', { user: { id: `other-${i}`, tz: 'Pacific/Kiritimati' }, value: 2 })).status, 201);
    t.equal((await s.event('m', { user: { id: user, tz: 'America/Los_Angeles' }, value: i + 1 })).status, 201);
  }
}

const recentKey = async (s: TestServer, user: string) => {
  const [tenant] = await s.app.ctx.tenants.all();
  return s.app.ctx.keys.tenant(tenant!.slot).recent(user);
};

t.test('with the flusher stopped and Postgres cut off, the reads right after an event answer from Redis, as Postgres would', async (t) => {
  const relay = new Relay(Number(PG.port || 5432));
  const port = await relay.start();
  t.teardown(() => relay.cut());
  const url = new URL(PG);
  url.port = String(port);
  const s = await startServer(t, { DATABASE_URL: url.toString() });
  await configure(s);
  await s.app.flusher.stop();
  await activity(s, 'ann');
  // (A read that needs no Postgres, so the server holds the API key at this time of its clock.)
  t.equal((await s.call('GET', '/v1/users/ann/metrics/m')).status, 200);
  await relay.cut();
  const before = await readFlushes(s);
  const fromRedis = await readAll(s, READS('ann'));
  for (const [path, [status, body]] of Object.entries(fromRedis) as [string, [number, unknown]][]) t.equal(status, 200, `${path} ${JSON.stringify(body)}`);
  t.equal(await readFlushes(s), before, 'no read wrote to Postgres first');
  const xp = (fromRedis['/v1/users/ann/points/xp'] as [number, { total: number; awards: { awarded: number; boosts: unknown[] }[] }])[1];
  t.same(xp.awards.map((a) => [a.awarded, a.boosts.length]), [[40, 0], [60, 1], [20, 0], [10, 0], [5, 0]], 'recent awards, newest first, the boosted one doubled');
  t.equal(xp.total, 135);
  const streak = (fromRedis['/v1/users/ann/streak'] as [number, { length: number; streakHistory: { length: number }[] }])[1];
  t.equal(streak.length, 4);
  t.same(streak.streakHistory.map((p) => p.length), [0, 0, 0, 1, 2, 3, 4]);
  const top = (fromRedis['/v1/users/ann/leaderboards/top'] as [number, { rank: number; value: number; history: { value: number; date: string }[] }])[1];
  t.match(top, { rank: 1, value: 10 });
  t.same(top.history.map((h) => [h.date, h.value]), [['2026-03-13', 10], ['2026-03-12', 6], ['2026-03-11', 3], ['2026-03-10', 1]], 'rank history with local dates');

  // Postgres back, everything written: the same reads from Postgres alone (the recent history dropped) agree.
  await relay.restore();
  s.app.flusher.start();
  await s.drain();
  await s.app.ctx.redis.del(await recentKey(s, 'ann'));
  const fromPostgres = await readAll(s, READS('ann'));
  t.same(fromPostgres, fromRedis, 'Redis answered exactly as Postgres does');
});

t.test('a request past what Redis keeps reads Postgres, after writing what it lacks', async (t) => {
  const s = await startServer(t);
  await configure(s);
  await s.app.flusher.stop();
  for (let d = 1; d <= 14; d++) {
    s.clock.set(`2026-03-${String(d + 1).padStart(2, '0')}T10:00:00Z`);
    await s.event('m', { user: { id: 'bo' }, value: 1 });
  }
  const before = await readFlushes(s);
  const ten = await s.call('GET', '/v1/users/bo/points/xp');
  t.equal(ten.body.awards.length, 10);
  const history = await s.call('GET', '/v1/users/bo/leaderboards/top?numEvents=10');
  t.same(history.body.history.map((h: { value: number }) => h.value), [14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
  t.equal(await readFlushes(s), before, 'the default counts come from Redis');
  const all = await s.call('GET', '/v1/users/bo/points/xp?awards=20');
  t.same(all.body.awards.map((a: { awarded: number }) => a.awarded), [10, 10, 10, 20, ...Array(10).fill(10), 5], 'every award (the 12th boosted), from Postgres');
  t.same(all.body.awards.slice(0, 10), ten.body.awards, 'agreeing with the recent ones');
  t.equal(await readFlushes(s), before + 1, 'after writing the unflushed records');
  const long = await s.call('GET', '/v1/users/bo/leaderboards/top?numEvents=12');
  t.same(long.body.history.map((h: { value: number }) => h.value), [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
});

t.test('a wipe and rebuild from Postgres gives the same recent history', async (t) => {
  const a = await startServer(t);
  await configure(a);
  await activity(a, 'ann');
  for (let d = 1; d <= 12; d++) {
    a.clock.set(`2026-03-${String(d + 1).padStart(2, '0')}T12:00:00Z`);
    await a.event('m', { user: { id: 'bo' }, value: 1 });
  }
  await a.drain();
  const users = ['ann', 'bo', 'other-0', 'other-3'];
  const redis = await sharedRedis(t);
  const kept = async (s: TestServer) => Promise.all(users.map(async (u) => Object.fromEntries(decodeRecent(await redis.get(await recentKey(s, u))))));
  const before = await kept(a);
  t.ok(before.every((h: Record<string, string>) => h.t === '1' && Object.keys(h).length > 1), 'every user has recent history');
  const reads = await readAll(a, users.flatMap(READS));
  await a.app.close();
  await purgePrefix(a.prefix);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  b.clock.set(a.clock.now());
  t.same(await kept(b), before, 'field by field');
  t.same(await readAll(b, users.flatMap(READS)), reads, 'and every read as before');
});

t.test('an erased user leaves no recent history', async (t) => {
  const s = await startServer(t);
  await configure(s);
  await activity(s, 'gone');
  const key = await recentKey(s, 'gone');
  t.equal(await s.app.ctx.redis.exists(key), 1);
  t.equal((await s.call('DELETE', '/admin/v1/users/gone')).status, 200);
  t.equal(await s.app.ctx.redis.exists(key), 0);
});
