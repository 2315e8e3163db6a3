import t from 'tap';
import { startBehindRedisRelay, startServer, TestServer } from './helpers/harness';
import { until } from './helpers/process';

async function appKey(s: TestServer, userId: string, rateLimit?: unknown): Promise<{ id: string; key: string }> {
  const r = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId, ...(rateLimit === undefined ? {} : { rateLimit }) }] });
  if (r.status !== 201) throw new Error(`key setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0];
}

/** Statuses of `n` reads of the key's own user. */
async function reads(s: TestServer, key: string, userId: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await s.call('GET', `/v1/users/${userId}`, { key })).status);
  return out;
}

t.test('a key with its own limit: burst, then 429 with Retry-After, then recovery as time passes', async (t) => {
  const s = await startServer(t);
  await s.call('POST', '/v1/users', { body: { id: 'u' } });
  const k = await appKey(s, 'u', { perSecond: 1, burst: 3 });

  t.same(await reads(s, k.key, 'u', 3), [200, 200, 200], 'the burst is allowed at once');
  const refused = await s.call('GET', '/v1/users/u', { key: k.key });
  t.equal(refused.status, 429);
  t.type(refused.body.error, 'string');
  t.equal(refused.headers.get('retry-after'), '1');
  t.equal(refused.headers.get('ratelimit-limit'), '3');
  t.equal(refused.headers.get('ratelimit-remaining'), '0');
  t.equal(refused.headers.get('ratelimit-reset'), '3', 'the bucket is full again in 3 s');

  s.clock.advance(999);
  t.equal((await s.call('GET', '/v1/users/u', { key: k.key })).status, 429, 'not a moment before');
  s.clock.advance(1);
  t.same(await reads(s, k.key, 'u', 2), [200, 429], 'one more after a second');

  s.clock.advance(10_000);
  t.same(await reads(s, k.key, 'u', 4), [200, 200, 200, 429], 'a long pause restores the burst, no more');

  t.equal((await s.call('GET', '/v1/users/u')).status, 200, 'other keys are not affected (no default limit)');
});

t.test('limits are changed per key through the admin API', async (t) => {
  const s = await startServer(t);
  await s.call('POST', '/v1/users', { body: { id: 'u' } });
  const k = await appKey(s, 'u');
  t.same(await reads(s, k.key, 'u', 10), Array(10).fill(200), 'no limit by default');

  const set = await s.call('PATCH', '/admin/v1/application-api-keys', { body: [{ id: k.id, rateLimit: { perSecond: 2 } }] });
  t.equal(set.status, 200);
  t.same(set.body.updated, [{ id: k.id, userId: 'u', prefix: k.key.split('.')[0], rateLimit: { perSecond: 2, burst: 2 } }], 'burst defaults to one second');
  t.same(await reads(s, k.key, 'u', 3), [200, 200, 429], 'in force on the next request');
  const r = await s.call('GET', '/v1/users/u', { key: k.key });
  t.equal(r.headers.get('retry-after'), '1', 'half a second away rounds up to 1');

  await s.call('PATCH', '/admin/v1/application-api-keys', { body: [{ id: k.id, rateLimit: { perSecond: 0 } }] });
  t.same(await reads(s, k.key, 'u', 10), Array(10).fill(200), 'perSecond 0 lifts the limit');

  const bad = await s.call('PATCH', '/admin/v1/application-api-keys', {
    body: [{ id: k.id, rateLimit: { perSecond: -1 } }, { id: k.id, rateLimit: { perSecond: 1, burst: 0 } }, { id: '00000000-0000-4000-8000-000000000000', rateLimit: null }],
  });
  t.equal(bad.status, 200);
  t.same(bad.body.updated, []);
  t.same(bad.body.issues.map((i: { index?: number; id?: string }) => i.index ?? i.id), [0, 1, '00000000-0000-4000-8000-000000000000']);
  t.same(await reads(s, k.key, 'u', 5), Array(5).fill(200), 'refused changes changed nothing');
});

t.test('the default limit applies to the admin key and to keys without their own', async (t) => {
  const s = await startServer(t, { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  const first = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'u' }, { userId: 'v', rateLimit: { perSecond: 0 } }] });
  const [limited, exempt] = first.body.created;
  t.equal(first.body.created[1].rateLimit.perSecond, 0, 'the creation answer shows a requested limit');
  t.notOk('rateLimit' in limited, 'and only then (Trophy shape otherwise)');
  t.equal((await s.call('POST', '/v1/users', { body: { id: 'u' } })).status, 201);
  const over = await s.call('POST', '/v1/users', { body: { id: 'v' } });
  t.equal(over.status, 429, 'the ADMIN_API_KEY from the environment has the default');
  t.equal(over.headers.get('ratelimit-limit'), '2');
  s.clock.advance(1000);
  t.equal((await s.call('POST', '/v1/users', { body: { id: 'v' } })).status, 201);

  t.same(await reads(s, limited.key, 'u', 3), [200, 200, 429], 'a key without its own limit has the default');
  t.same(await reads(s, exempt.key, 'v', 10), Array(10).fill(200), 'a key with perSecond 0 has none');
});

t.test('one limit across processes, and a change reaches every process', async (t) => {
  const a = await startServer(t);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  await a.call('POST', '/v1/users', { body: { id: 'u' } });
  const k = await appKey(a, 'u');
  t.equal((await b.call('GET', '/v1/users/u', { key: k.key })).status, 200, 'b caches the key, unlimited');

  await a.call('PATCH', '/admin/v1/application-api-keys', { body: [{ id: k.id, rateLimit: { perSecond: 0.1, burst: 2 } }] });
  // b drops its copy when the broadcast arrives; until then it may still serve the old setting.
  await until('b to apply the new limit', async () => (await b.call('GET', '/v1/users/u', { key: k.key })).status === 429);
  t.equal((await a.call('GET', '/v1/users/u', { key: k.key })).status, 429, 'the two processes share one bucket');
  a.clock.advance(10_000);
  t.equal((await a.call('GET', '/v1/users/u', { key: k.key })).status, 200, 'one request per 10 s');
  t.equal((await a.call('GET', '/v1/users/u', { key: k.key })).status, 429);
});

t.test('with Redis unreachable the limiter lets requests through (no 500)', async (t) => {
  const { s, relay } = await startBehindRedisRelay(t, { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '1' });
  t.equal((await s.call('GET', '/admin/v1/metrics')).status, 200);
  t.equal((await s.call('GET', '/admin/v1/metrics')).status, 429);
  await relay.cut();
  t.equal((await s.call('GET', '/admin/v1/metrics')).status, 200, 'a Postgres read is still served');
  const ev = await s.event('m', { user: { id: 'u' }, value: 1 });
  t.equal(ev.status, 503, 'what needs Redis answers 503');
  await relay.restore();
  await until('the limiter to count again', async () => (await s.call('GET', '/admin/v1/metrics')).status === 429);
});
