import t from 'tap';
import { keysUnder, sharedRedis, startServer } from './helpers/harness';

t.test('the event path', async (t) => {
  const s = await startServer(t);
  const { words } = await s.metrics(['words', 'other']);
  await s.attributes([{ key: 'plan', type: 'user' }, { key: 'source', type: 'event' }]);

  t.test('totals add up like decimals, not floats', async (t) => {
    const a = await s.event('words', { user: { id: 'dec' }, value: 0.1 });
    t.equal(a.status, 201);
    const b = await s.event('words', { user: { id: 'dec' }, value: 0.2 });
    t.equal(b.body.total, 0.3);
    const c = await s.event('words', { user: { id: 'dec' }, value: -1.5 });
    t.equal(c.body.total, -1.2);
    t.equal((await s.call('GET', '/v1/users/dec/metrics/words')).body.current, -1.2);
  });

  t.test('the response has every EventResponse field', async (t) => {
    const r = await s.event('words', { user: { id: 'shape' }, value: 750 });
    t.equal(r.status, 201);
    t.match(r.body, {
      eventId: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      metricId: words!.id,
      total: 750,
      achievements: [],
      currentStreak: { length: 0, frequency: 'daily', started: null, periodStart: null, periodEnd: null, expires: null, extended: false },
      points: {},
      leaderboards: {},
    });
    t.notOk('idempotencyKey' in r.body, 'no idempotency fields without the header');
    t.notOk('idempotentReplayed' in r.body);
  });

  t.test('the user is upserted from the body', async (t) => {
    await s.event('words', { user: { id: 'up', name: 'Upton', tz: 'Asia/Tokyo', attributes: { plan: 'pro' } }, value: 1, attributes: { source: 'ios' } });
    t.match((await s.call('GET', '/v1/users/up')).body, { name: 'Upton', tz: 'Asia/Tokyo', attributes: { plan: 'pro' } });
    await s.event('words', { user: { id: 'up', email: 'up@example.com' }, value: 1 });
    t.match((await s.call('GET', '/v1/users/up')).body, { name: 'Upton', email: 'up@example.com', tz: 'Asia/Tokyo' });
  });

  t.test('bad events change nothing at all', async (t) => {
    await s.event('words', { user: { id: 'strict' }, value: 1 });
    const unknownMetric = await s.event('nope', { user: { id: 'strict' }, value: 1 });
    t.equal(unknownMetric.status, 404);
    t.match(unknownMetric.body.error, /nope/);
    const userAttr = await s.event('words', { user: { id: 'strict', name: 'Changed', attributes: { tier: 'x' } }, value: 1 });
    t.equal(userAttr.status, 422);
    t.match(userAttr.body.error, /tier/);
    const eventAttr = await s.event('words', { user: { id: 'strict', name: 'Changed' }, value: 1, attributes: { colour: 'x' } });
    t.equal(eventAttr.status, 422);
    t.equal((await s.event('words', { user: { id: 'strict', tz: 'Nowhere/Land' }, value: 1 })).status, 422);
    t.equal((await s.event('words', { user: { id: 'strict' }, value: 1e13 })).status, 422, 'absurd values are refused');
    const u = (await s.call('GET', '/v1/users/strict')).body;
    t.equal(u.name, null, 'the profile was not touched');
    t.equal((await s.call('GET', '/v1/users/strict/metrics/words')).body.current, 1, 'the total was not touched');
    t.equal((await s.event('words', { user: { id: 'never' }, value: 1, attributes: { colour: 'x' } })).status, 422);
    t.equal((await s.call('GET', '/v1/users/never')).status, 404, 'a refused event creates no user');
  });

  t.test('idempotency: first 201, replays 202 with the current state and no effect', async (t) => {
    const first = await s.event('words', { user: { id: 'idem' }, value: 5 }, { headers: { 'Idempotency-Key': 'lesson-1' } });
    t.equal(first.status, 201);
    t.match(first.body, { total: 5, idempotencyKey: 'lesson-1', idempotentReplayed: false });
    await s.event('words', { user: { id: 'idem' }, value: 2 });
    const replay = await s.event('words', { user: { id: 'idem', name: 'Sneaky' }, value: 5 }, { headers: { 'Idempotency-Key': 'lesson-1' } });
    t.equal(replay.status, 202);
    t.match(replay.body, { total: 7, idempotencyKey: 'lesson-1', idempotentReplayed: true, eventId: first.body.eventId });
    t.equal((await s.call('GET', '/v1/users/idem/metrics/words')).body.current, 7);
    t.equal((await s.call('GET', '/v1/users/idem')).body.name, null, 'a replay does not upsert the user');

    // Keys are scoped by user and by metric.
    t.equal((await s.event('other', { user: { id: 'idem' }, value: 1 }, { headers: { 'Idempotency-Key': 'lesson-1' } })).status, 201);
    t.equal((await s.event('words', { user: { id: 'idem2' }, value: 1 }, { headers: { 'Idempotency-Key': 'lesson-1' } })).status, 201);
    // No expiry: a week later it is still a replay.
    s.clock.advance(7 * 86_400_000);
    t.equal((await s.event('words', { user: { id: 'idem' }, value: 5 }, { headers: { 'Idempotency-Key': 'lesson-1' } })).status, 202);
    t.equal((await s.event('words', { user: { id: 'idem' }, value: 5 }, { headers: { 'Idempotency-Key': 'x'.repeat(256) } })).status, 422);
  });

  t.test('a used idempotency key costs an integer in a compact set, not a key of its own', async (t) => {
    for (let i = 0; i < 20; i++) await s.event('words', { user: { id: 'compact' }, value: 1 }, { headers: { 'Idempotency-Key': `k-${i}` } });
    const buckets = (await keysUnder(s.prefix)).filter((k) => k.includes(':i:'));
    t.ok(buckets.length > 0);
    const r = await sharedRedis(t);
    for (const b of buckets) t.equal(await r.object('ENCODING', b), 'intset', `${b} is an intset`);
  });

  t.test('200 parallel requests with one Idempotency-Key apply once', async (t) => {
    const rs = await Promise.all(
      Array.from({ length: 200 }, () => s.event('words', { user: { id: 'race' }, value: 3 }, { headers: { 'Idempotency-Key': 'same' } })),
    );
    t.equal(rs.filter((r) => r.status === 201).length, 1);
    t.equal(rs.filter((r) => r.status === 202).length, 199);
    t.equal((await s.call('GET', '/v1/users/race/metrics/words')).body.current, 3);
  });

  t.test('1,000 parallel distinct events give the exact total', async (t) => {
    const rs = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.event('words', { user: { id: 'crowd' }, value: i % 2 ? 0.1 : 1 })));
    t.ok(rs.every((r) => r.status === 201));
    t.equal((await s.call('GET', '/v1/users/crowd/metrics/words')).body.current, 550);
    await s.app.flusher.drain();
    const sum = await s.call('GET', '/v1/users/crowd/metrics/words/event-summary?aggregation=daily&startDate=2026-03-16&endDate=2026-03-17');
    t.equal(sum.body.at(-1).total, 550, 'and every one of them reached Postgres');
  });
});
