import t, { Test } from 'tap';
import { purgePrefix, startServer, TestServer } from './helpers/harness';
import { Relay } from './helpers/proxy';
import { historyField } from '../src/domain/user-hash';

// Once an event is acknowledged, every read reflects it, including the reads
// served from Postgres, whatever the flusher's lag.

async function configure(s: TestServer) {
  const { m } = await s.metrics(['m']);
  const r = await s.call('POST', '/admin/v1/points', { body: [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 10, status: 'active' }] }] });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } });
  await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', status: 'active' }] });
}

const DAY1 = '2026-03-10';
const DAY2 = '2026-03-11';

/**
 * An event (day 2, after one on day 1) answered, then at once every read
 * that comes from Postgres, through `reader`: each must show it.
 */
async function eventThenReads(t: Test, writer: TestServer, reader: TestServer, user: string) {
  writer.clock.set(`${DAY1}T10:00:00Z`);
  reader.clock.set(`${DAY1}T10:00:00Z`);
  t.equal((await writer.event('m', { user: { id: user }, value: 1 })).status, 201);
  writer.clock.set(`${DAY2}T10:00:00Z`);
  reader.clock.set(`${DAY2}T10:00:00Z`);
  const ev = await writer.event('m', { user: { id: user }, value: 2 });
  t.equal(ev.status, 201);
  t.equal(ev.body.points.xp.added, 20);

  const awards = await reader.call('GET', `/v1/users/${user}/points/xp?awards=5`);
  t.same(awards.body.awards.map((a: { awarded: number }) => a.awarded), [20, 10], 'recent awards: the new one first');
  const range = `aggregation=daily&startDate=${DAY1}&endDate=${DAY2}`;
  const metricSummary = await reader.call('GET', `/v1/users/${user}/metrics/m/event-summary?${range}`);
  t.same(metricSummary.body, [{ date: DAY1, total: 1, change: 1 }, { date: DAY2, total: 3, change: 2 }], 'metric event summary');
  const pointsSummary = await reader.call('GET', `/v1/users/${user}/points/xp/event-summary?${range}`);
  t.same(pointsSummary.body.map((p: { total: number }) => p.total), [10, 30], 'points event summary');
  const streak = await reader.call('GET', `/v1/users/${user}/streak?historyPeriods=2`);
  t.same(streak.body.streakHistory.map((p: { length: number }) => p.length), [1, 2], 'streak history');
  const board = await reader.call('GET', `/v1/users/${user}/leaderboards/top?numEvents=5`);
  t.same(board.body.history.map((h: { value: number }) => h.value), [3, 1], "the user's leaderboard history");
  const histogram = await reader.call('GET', '/v1/points/xp/summary');
  t.ok(histogram.body.some((b: { from: number; to: number; users: number }) => b.users > 0 && b.from <= 30 && 30 <= b.to), 'the points histogram counts the new total');
}

t.test('at rest', async (t) => {
  const s = await startServer(t);
  await configure(s);
  await eventThenReads(t, s, s, 'rest');
});

t.test('while the flusher is held back', async (t) => {
  const s = await startServer(t);
  await configure(s);
  await s.app.flusher.stop();
  const before = await readFlushes(s);
  await eventThenReads(t, s, s, 'held');
  t.equal((await s.call('GET', '/readyz', { key: null })).body.flusherLag.entries, 0, 'the reads wrote what they needed');
  const after = await readFlushes(s);
  t.ok(after > before, 'and /metrics counts them (laurel_read_flushes_total)');
  await s.call('GET', '/v1/users/held/points/xp?awards=5');
  t.equal(await readFlushes(s), after, 'a read with nothing unflushed writes nothing first');
});

t.test('a streak read answers from Redis: neither its own record nor an unflushed period makes it write to Postgres', async (t) => {
  const s = await startServer(t);
  await configure(s);
  s.clock.set(`${DAY1}T10:00:00Z`);
  t.equal((await s.call('POST', '/v1/users', { body: { id: 'fresh', tz: 'Europe/Paris' } })).status, 201);
  await s.drain();
  await s.app.flusher.stop();
  const before = await readFlushes(s);
  const r = await s.call('GET', '/v1/users/fresh/streak');
  t.equal(r.status, 200);
  t.match(r.body, { length: 0, streakHistory: [{ length: 0 }] });
  t.equal((await s.call('GET', '/readyz', { key: null })).body.flusherLag.entries, 1, 'the read recorded the fresh state');
  t.equal(await readFlushes(s), before, 'and answered without writing it to Postgres first');
  // Nine days extended, none flushed: the default window (7) comes from the user hash.
  for (let day = 10; day <= 18; day++) {
    s.clock.set(`2026-03-${day}T10:00:00Z`);
    t.equal((await s.event('m', { user: { id: 'fresh' }, value: 1 })).status, 201);
  }
  const recent = await s.call('GET', '/v1/users/fresh/streak');
  t.same(recent.body.streakHistory.map((p: { length: number }) => p.length), [3, 4, 5, 6, 7, 8, 9]);
  t.equal(await readFlushes(s), before, 'still without writing to Postgres first');
  // A longer window reaches periods the hash no longer keeps: Postgres, after writing the user's records.
  const long = await s.call('GET', '/v1/users/fresh/streak?historyPeriods=12');
  t.same(long.body.streakHistory.map((p: { length: number }) => p.length), [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  t.equal(await readFlushes(s), before + 1);
});

t.test('a user whose hash predates the kept history: the periods before it come from Postgres', async (t) => {
  const s = await startServer(t);
  await configure(s);
  for (let day = 10; day <= 12; day++) {
    s.clock.set(`2026-03-${day}T10:00:00Z`);
    await s.event('m', { user: { id: 'old' }, value: 1 });
  }
  // As a hash written before Laurel kept history there.
  const [tenant] = await s.app.ctx.tenants.all();
  await s.app.ctx.redis.hdel(s.app.ctx.keys.tenant(tenant!.slot).user('old'), historyField('d'));
  await s.app.flusher.stop();
  s.clock.set('2026-03-13T10:00:00Z');
  await s.event('m', { user: { id: 'old' }, value: 1 });
  const before = await readFlushes(s);
  const r = await s.call('GET', '/v1/users/old/streak?historyPeriods=5');
  t.same(r.body.streakHistory.map((p: { length: number }) => p.length), [0, 1, 2, 3, 4]);
  t.equal(await readFlushes(s), before + 1, 'read from Postgres, after writing what it lacked');
});

/** laurel_read_flushes_total, all scopes. */
async function readFlushes(s: TestServer): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  return [...text.matchAll(/^laurel_read_flushes_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

t.test('the event on one worker, the reads on another', async (t) => {
  const a = await startServer(t);
  await configure(a);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey }, { http: true, background: false });
  await a.app.flusher.stop();
  await eventThenReads(t, a, b, 'two');
});

t.test('right after Redis is rebuilt from Postgres', async (t) => {
  const a = await startServer(t);
  await configure(a);
  a.clock.set(`${DAY1}T09:00:00Z`);
  await a.event('m', { user: { id: 'other' }, value: 1 });
  await a.drain();
  await a.app.close();
  await purgePrefix(a.prefix);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  await b.app.flusher.stop();
  const awards = await b.call('GET', '/v1/users/other/points/xp?awards=5');
  t.same(awards.body.awards.map((x: { awarded: number }) => x.awarded), [10], 'what Postgres held is read as it is');
  await eventThenReads(t, b, b, 'rebuilt');
});

t.test('while Postgres is away, reads that need it answer 503, never stale data', async (t) => {
  const relay = new Relay(Number(new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel').port || 5432));
  const port = await relay.start();
  t.teardown(() => relay.cut());
  const url = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel');
  url.port = String(port);
  const s = await startServer(t, { DATABASE_URL: url.toString() });
  await configure(s);
  // Eight days extended: more than the user hash keeps (7 periods).
  for (let day = 10; day <= 17; day++) {
    s.clock.set(`2026-03-${day}T10:00:00Z`);
    await s.event('m', { user: { id: 'long' }, value: 1 });
  }
  await s.event('m', { user: { id: 'away' }, value: 1 });
  await s.drain();
  await relay.cut();
  t.equal((await s.event('m', { user: { id: 'away' }, value: 1 })).status, 201, 'events keep flowing');
  // (The user's recent awards no longer need Postgres: they come from Redis, below.)
  for (const path of ['/v1/users/away/points/xp/event-summary?aggregation=daily&startDate=2026-03-01&endDate=2026-03-31', '/v1/users/long/streak?historyPeriods=8', '/v1/points/xp/summary']) {
    const r = await s.call('GET', path);
    t.equal(r.status, 503, path);
    t.equal(r.headers.get('retry-after'), '1');
  }
  t.equal((await s.call('GET', '/v1/users/away/metrics/m')).body.current, 2, 'reads served from Redis alone still answer');
  const recent = await s.call('GET', '/v1/users/away/points/xp?awards=5');
  t.same(recent.body.awards.map((x: { awarded: number }) => x.awarded), [10, 10], 'the recent awards too');
  const streak = await s.call('GET', '/v1/users/long/streak');
  t.same(streak.body.streakHistory.map((p: { length: number }) => p.length), [2, 3, 4, 5, 6, 7, 8], 'a streak with its default history too');
  await relay.restore();
  const awards = await s.call('GET', '/v1/users/away/points/xp?awards=5');
  t.same(awards.body.awards.map((x: { awarded: number }) => x.awarded), [10, 10], 'and once it is back, the read is whole');
});
