import t, { Test } from 'tap';
import { startServer, TestServer } from './helpers/harness';

// Input the durable store could never hold is refused at the edge with 422,
// and nothing of the request is applied (the flusher is never handed it).

const NUL = 'a\u0000b';
const LONE = 'x\ud800y';

/** The request is refused with 422 and the `{"error"}` body, and no state moved. */
async function refused(t: Test, s: TestServer, method: string, path: string, opts: Parameters<TestServer['call']>[2] = {}, status = 422) {
  const before = await s.fingerprint();
  const r = await s.call(method, path, opts);
  t.equal(r.status, status, `${method} ${path} ${JSON.stringify(opts.body ?? '').slice(0, 80)}`);
  t.type(r.body?.error, 'string', 'with an error message');
  t.equal(await s.fingerprint(), before, 'nothing applied');
  return r;
}

t.test('strings Postgres cannot hold are refused wherever they come in', async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  await s.attributes([{ key: 'plan', type: 'user' }, { key: 'src', type: 'event' }]);
  const ok = await s.event('m', { user: { id: 'fine' }, value: 1 });
  t.equal(ok.status, 201);

  t.test('in an event body', async (t) => {
    for (const user of [{ id: NUL }, { id: LONE }, { id: 'u', name: NUL }, { id: 'u', attributes: { plan: NUL } }, { id: 'u', deviceTokens: [NUL] }, { id: '\udc00' }]) {
      await refused(t, s, 'POST', '/v1/metrics/m/event', { body: { user, value: 1 } });
    }
    await refused(t, s, 'POST', '/v1/metrics/m/event', { body: { user: { id: 'u' }, value: 1, attributes: { src: NUL } } });
    const r = await refused(t, s, 'POST', '/v1/metrics/m/event', { body: { user: { id: 'u', name: NUL }, value: 1 } });
    t.match(r.body.error, /body\.user\.name/, 'names the field');
    t.equal((await s.call('GET', '/v1/users/u')).status, 404, 'the user was never created');
    t.equal((await s.event('m', { user: { id: 'fine', name: 'Fïné 🙂' }, value: 1 })).status, 201, 'ordinary non-ASCII text is welcome');
  });

  t.test('in admin bodies', async (t) => {
    await refused(t, s, 'POST', '/admin/v1/metrics', { body: [{ key: 'n1', name: NUL }] });
    await refused(t, s, 'POST', '/admin/v1/leaderboards', { body: [{ key: 'b1', name: NUL, rankBy: 'metric', metricId: '00000000-0000-0000-0000-000000000001', start: '2026-03-01' }] });
    await refused(t, s, 'POST', '/admin/v1/achievements', { body: [{ key: 'a1', name: NUL, trigger: 'api' }] });
    await refused(t, s, 'POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/x', eventTypes: ['achievement.completed'], description: NUL }] });
    await refused(t, s, 'POST', '/admin/v1/tenants', { body: [{ customerId: 'c1', name: NUL }] });
    await refused(t, s, 'POST', '/admin/v1/application-api-keys', { body: [{ userId: NUL }] });
    await refused(t, s, 'POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: NUL, start: '2026-03-20', end: '2026-03-21' }] } });
    await refused(t, s, 'POST', '/admin/v1/points', { body: [{ key: 'p1', name: 'P', boosts: [{ name: 'b', userId: NUL, start: '2026-03-01', multiplier: 2 }] }] });
    await refused(t, s, 'POST', '/admin/v1/points', { body: [{ key: 'p2', name: 'P', triggers: [{ type: 'metric', metricId: '00000000-0000-0000-0000-000000000001', metricThreshold: 1, points: 1, userAttributes: [{ attributeId: '00000000-0000-0000-0000-000000000002', attributeValue: LONE }] }] }] });
  });

  t.test('in paths and queries', async (t) => {
    await refused(t, s, 'GET', '/v1/users/a%00b', {});
    await refused(t, s, 'PUT', `/v1/users/${'x'.repeat(8000)}`, { body: { name: 'Long' } });
    await refused(t, s, 'GET', '/v1/points/xp/summary?userAttributes=plan:%00', {});
    await refused(t, s, 'GET', `/v1/users/${'y'.repeat(256)}/metrics`, {});
    t.equal((await s.call('GET', `/v1/users/${'y'.repeat(255)}`)).status, 404, '255 characters is still an id');
  });

  t.test('dates out of range are refused, not a 500', async (t) => {
    for (const d of ['9999-12-31', '0001-01-01']) {
      const r = await s.call('GET', `/v1/users/fine/metrics/m/event-summary?aggregation=monthly&startDate=${d}&endDate=${d}`);
      t.ok(r.status >= 400 && r.status < 500, `${d}: ${r.status}`);
      t.type(r.body.error, 'string');
    }
    const r = await s.call('GET', '/v1/users/fine/metrics/m/event-summary?aggregation=monthly&startDate=2999-12-01&endDate=2999-12-31');
    t.equal(r.status, 200, 'the last supported month still works');
  });
});

t.test('__proto__ cannot name a metric, points system, leaderboard or attribute', async (t) => {
  const s = await startServer(t);
  for (const [path, body] of [
    ['/admin/v1/metrics', { key: '__proto__', name: 'P' }],
    ['/admin/v1/points', { key: '__proto__', name: 'P' }],
    ['/admin/v1/attributes', { key: '__proto__', name: 'P', type: 'user' }],
  ] as const) {
    const r = await s.call('POST', path, { body: [body] });
    t.same(r.body.created, [], `${path}: not created`);
    t.match(r.body.issues, [{ index: 0, message: /__proto__/ }]);
  }
  const { m } = await s.metrics(['m']);
  const b = await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: '__proto__', name: 'B', rankBy: 'metric', metricId: m!.id, start: '2026-03-01' }] });
  t.same(b.body.created, []);
  // A filter on that name is an ordinary unknown attribute: it matches nobody rather than everybody.
  await s.event('m', { user: { id: 'u1' }, value: 1 });
  const p = await s.call('POST', '/admin/v1/points', { body: [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 1, status: 'active' }] }] });
  t.equal(p.status, 201);
  await s.event('m', { user: { id: 'u1' }, value: 1 });
  await s.drain();
  const all = await s.call('GET', '/v1/points/xp/summary');
  const filtered = await s.call('GET', '/v1/points/xp/summary?userAttributes=__proto__:vip');
  const count = (r: { body: { users: number }[] }) => r.body.reduce((n, x) => n + x.users, 0);
  t.equal(count(all), 1);
  t.equal(count(filtered), 0);
});

t.test('application keys are changed and deleted only within the tenant of the request', async (t) => {
  const s = await startServer(t);
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'globex', name: 'Globex' }] });
  const made = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'alice' }] });
  const key = made.body.created[0];
  const patch = await s.call('PATCH', '/admin/v1/application-api-keys', { tenant: 'globex', body: [{ id: key.id, rateLimit: { perSecond: 1 } }] });
  t.same(patch.body.updated, []);
  t.match(patch.body.issues, [{ id: key.id, message: /not found/ }]);
  const del = await s.call('DELETE', `/admin/v1/application-api-keys?ids=${key.id}`, { tenant: 'globex' });
  t.same(del.body.deleted, []);
  t.match(del.body.issues, [{ id: key.id, message: /not found/ }]);
  t.equal((await s.call('GET', '/v1/users/alice', { key: key.key })).status, 404, 'the key still works, unlimited');
  t.equal((await s.call('DELETE', `/admin/v1/application-api-keys?ids=${key.id}`)).body.deleted.length, 1, 'its own tenant deletes it');
});

t.test("a deleted tenant's application keys answer 401 at once", async (t) => {
  const s = await startServer(t);
  const ten = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'gone', name: 'Gone' }] });
  const made = await s.call('POST', '/admin/v1/application-api-keys', { tenant: 'gone', body: [{ userId: 'bob' }] });
  const key = made.body.created[0].key;
  t.equal((await s.call('GET', '/v1/users/bob', { key })).status, 404, 'the key works (no such user yet)');
  await s.call('DELETE', `/admin/v1/tenants?ids=${ten.body.created[0].id}`);
  const r = await s.call('GET', '/v1/users/bob', { key });
  t.equal(r.status, 401);
  t.equal((await s.call('GET', '/v1/users/bob', { key, tenant: 'gone' })).status, 401, 'with its old Tenant-ID too');
});
