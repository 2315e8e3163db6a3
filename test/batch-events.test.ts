import t from 'tap';
import { startServer, TestServer } from './helpers/harness';

/** Metrics, an XP system, an achievement, a board, a daily streak and a webhook endpoint. */
async function configure(s: TestServer) {
  const { lessons, spare } = await s.metrics(['lessons', 'spare']);
  await s.attributes([{ key: 'source', type: 'event' }]);
  const ok = async (method: string, path: string, body: unknown) => {
    const r = await s.call(method, path, { body });
    if (r.status >= 300 || r.body.issues?.length) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  };
  await ok('POST', '/admin/v1/points', [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: lessons!.id, metricThreshold: 1, points: 10, status: 'active' }] }]);
  await ok('POST', '/admin/v1/achievements', [{ key: 'first', name: 'First', trigger: 'metric', metricId: lessons!.id, metricValue: 2, status: 'active' }]);
  await ok('POST', '/admin/v1/leaderboards', [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: lessons!.id, start: '2026-01-01', status: 'active' }]);
  await ok('PUT', '/admin/v1/streak', { enabled: true, frequency: 'daily', metrics: [{ metricId: lessons!.id, threshold: 1 }] });
  const hook = await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: ['achievement.completed'] }] });
  return { spare: spare!, hookId: hook.body.created[0].id as string };
}

/** What a user's events led to, as the read endpoints show it. */
async function consequences(s: TestServer, user: string) {
  const [metric, points, achievements, streak, board] = await Promise.all([
    s.call('GET', `/v1/users/${user}/metrics/lessons`),
    s.call('GET', `/v1/users/${user}/points/xp`),
    s.call('GET', `/v1/users/${user}/achievements`),
    s.call('GET', `/v1/users/${user}/streak`),
    s.call('GET', `/v1/users/${user}/leaderboards/top`),
  ]);
  return {
    total: metric.body.current,
    points: points.body.total,
    awards: points.body.awards.map((a: { awarded: number }) => a.awarded),
    achievements: achievements.body.map((a: { key: string }) => a.key),
    streak: streak.body.length,
    rank: board.body.rank,
    value: board.body.value,
  };
}

t.test('a batch of events has exactly the consequences of the same single events', async (t) => {
  const s = await startServer(t);
  const { hookId } = await configure(s);
  await s.event('lessons', { user: { id: 'single', tz: 'Europe/Paris' }, value: 2, attributes: { source: 'ios' } });

  const r = await s.call('POST', '/admin/v1/metrics/events', { body: [
    { key: 'lessons', user: { id: 'batched', tz: 'Europe/Paris' }, value: 2, attributes: { source: 'ios' }, idempotencyKey: 'lesson-1' },
    { key: 'lessons', user: { id: 'batched' }, value: 2, idempotencyKey: 'lesson-1' }, // a retry inside the batch: once
    { key: 'lessons', user: { id: 'other' }, value: 1 },
  ] });
  t.same([r.status, r.body], [202, { accepted: 3 }]);
  await s.app.batches.drain();

  t.same(await consequences(s, 'batched'), { ...(await consequences(s, 'single')), rank: 2 }, 'the same totals, points, achievement, streak; ranked after the earlier user');
  t.match(await consequences(s, 'other'), { total: 1, points: 10, achievements: [], streak: 1, rank: 3 });
  await s.drain();
  const deliveries = (await s.call('GET', `/admin/v1/webhooks/${hookId}/deliveries?limit=10`)).body as { payload: { user: { id: string } } }[];
  t.same(deliveries.map((d) => d.payload.user.id).sort(), ['batched', 'single'], 'achievement.completed queued for each, as for a single event');

  // The same batch again: its idempotency keys count nothing twice.
  await s.call('POST', '/admin/v1/metrics/events', { body: [{ key: 'lessons', user: { id: 'batched' }, value: 2, idempotencyKey: 'lesson-1' }] });
  await s.app.batches.drain();
  t.equal((await consequences(s, 'batched')).total, 2);
  // And the single endpoint shares the keys.
  t.equal((await s.event('lessons', { user: { id: 'batched' }, value: 2 }, { headers: { 'Idempotency-Key': 'lesson-1' } })).status, 202);
});

t.test('an invalid item refuses the whole batch and nothing is queued', async (t) => {
  const s = await startServer(t);
  await configure(s);
  const cases: [unknown, number, RegExp][] = [
    [[], 422, /at least|minItems|MinItems/i],
    [[{ key: 'lessons', user: { id: 'u' }, value: 1 }, { key: 'lessons', user: {}, value: 1 }], 422, /body\[1\]\.user\.id/],
    [[{ key: 'lessons', user: { id: 'u' }, value: 1, attributes: { nope: 'x' } }], 422, /Item 0:.*nope/],
    [[{ key: 'lessons', user: { id: 'u', tz: 'Mars/Base' }, value: 1 }], 422, /Item 0:.*tz/],
    [[{ key: 'lessons', user: { id: 'u' }, value: 1 }, { key: 'missing', user: { id: 'u' }, value: 1 }], 404, /Item 1:.*missing/],
    [Array.from({ length: 1001 }, (_, i) => ({ key: 'lessons', user: { id: `u${i}` }, value: 1 })), 422, /body/],
  ];
  for (const [body, status, error] of cases) {
    const r = await s.call('POST', '/admin/v1/metrics/events', { body });
    t.equal(r.status, status, String(error));
    t.match(r.body.error, error);
  }
  t.equal((await s.call('POST', '/admin/v1/metrics/events', { raw: '[{', headers: { 'Content-Type': 'application/json' } })).status, 400, 'unreadable JSON: 400, as Trophy documents here');
  await s.app.batches.drain();
  t.equal((await s.call('GET', '/v1/users/u/metrics/lessons')).status, 404, 'no item of a refused batch was applied');

  const full = Array.from({ length: 1000 }, (_, i) => ({ key: 'lessons', user: { id: `u${i % 10}` }, value: 1 }));
  t.same((await s.call('POST', '/admin/v1/metrics/events', { body: full })).body, { accepted: 1000 });
  await s.app.batches.drain();
  t.equal((await s.call('GET', '/v1/users/u3/metrics/lessons')).body.current, 100, 'all 1,000 applied, none twice');
});

t.test('an item that cannot be applied when its turn comes is kept, not lost', async (t) => {
  const s = await startServer(t);
  const { spare } = await configure(s);
  await s.app.close(); // no background consumer: the batch waits in the queue
  const s2 = await startServer(t, { DATABASE_SCHEMA: s.schema, REDIS_KEY_PREFIX: s.prefix }, { http: true, background: false });
  const r = await s2.call('POST', '/admin/v1/metrics/events', { body: [
    { key: 'spare', user: { id: 'kim' }, value: 1 },
    { key: 'lessons', user: { id: 'kim' }, value: 1 },
  ] });
  t.equal(r.status, 202);
  t.equal((await s2.call('DELETE', `/admin/v1/metrics?ids=${spare.id}`)).status, 200, 'the metric goes before the batch is applied');
  await s2.app.batches.drain();

  t.equal((await s2.call('GET', '/v1/users/kim/metrics/lessons')).body.current, 1, 'the other item is applied');
  const rejected = await s2.call('GET', '/admin/v1/metrics/events/rejected');
  t.match(rejected.body, [{ index: 0, status: 404, error: /spare/, item: { key: 'spare', user: { id: 'kim' }, value: 1 } }]);
  const one = await s2.call('GET', `/admin/v1/metrics/events/rejected/${rejected.body[0].id}`);
  t.same(one.body, rejected.body[0]);
  await s2.app.batches.drain();
  t.equal((await s2.call('GET', '/admin/v1/metrics/events/rejected')).body.length, 1, 'recorded once');
  t.equal((await s2.call('DELETE', `/admin/v1/metrics/events/rejected?ids=${one.body.id}`)).status, 200);
  t.same((await s2.call('GET', '/admin/v1/metrics/events/rejected')).body, []);
});

t.test("a batch a dead process was applying is taken over, and nothing counts twice", async (t) => {
  const s = await startServer(t);
  await configure(s);
  await s.app.close(); // no background consumer: this test plays the dead one
  const s2 = await startServer(t, { DATABASE_SCHEMA: s.schema, REDIS_KEY_PREFIX: s.prefix, FLUSH_CLAIM_MS: '200' }, { http: true, background: false });
  t.equal((await s2.call('POST', '/admin/v1/metrics/events', { body: [
    { key: 'lessons', user: { id: 'lee' }, value: 1 },
    { key: 'lessons', user: { id: 'lee' }, value: 2 },
  ] })).status, 202);
  // The dead process had read the batch and applied its first item (under the key the consumer derives), then died.
  const { redis, keys } = s2.app.ctx;
  const stream = keys.tenant(0).batches;
  await redis.xgroup('CREATE', stream, 'apply', '0', 'MKSTREAM').catch(() => undefined);
  const read = (await redis.xreadgroup('GROUP', 'apply', 'dead', 'COUNT', 1, 'STREAMS', stream, '>')) as [string, [string, string[]][]][];
  const entryId = read[0]![1][0]![0];
  t.equal((await s2.event('lessons', { user: { id: 'lee' }, value: 1 }, { headers: { 'Idempotency-Key': `laurel-batch:${entryId}:0` } })).status, 201);

  await s2.app.batches.drain();
  t.equal((await s2.call('GET', '/v1/users/lee/metrics/lessons')).body.current, 1, 'not taken over while the dead consumer may still be alive');
  await new Promise((r) => setTimeout(r, 300));
  await s2.app.batches.drain();
  t.equal((await s2.call('GET', '/v1/users/lee/metrics/lessons')).body.current, 3, 'taken over: the first item not counted again, the second counted');
  t.equal(await redis.xlen(stream), 0, 'and acknowledged');
});

t.test('a large batch is applied in runs, and each user sees their events in order as if sent alone', async (t) => {
  const s = await startServer(t);
  await configure(s);
  const users = ['u1', 'u2', 'u3', 'u4', 'u5'];
  // Interleaved, with users repeating at every distance, values telling the events apart.
  const items = Array.from({ length: 60 }, (_, i) => ({ user: users[(i * 7 + Math.floor(i / 5)) % users.length]!, value: 1 + (i % 9) }));
  for (const it of items) t.equal((await s.event('lessons', { user: { id: `single-${it.user}` }, value: it.value })).status, 201);
  const r = await s.call('POST', '/admin/v1/metrics/events', { body: items.map((it) => ({ key: 'lessons', user: { id: `batch-${it.user}` }, value: it.value })) });
  t.same([r.status, r.body], [202, { accepted: items.length }]);
  await s.app.batches.drain();
  await s.drain();
  for (const u of users) {
    const { rank: _a, ...single } = await consequences(s, `single-${u}`);
    const { rank: _b, ...batched } = await consequences(s, `batch-${u}`);
    t.same(batched, single, `${u}: totals, the awards in order, achievements, streak`);
  }
});
