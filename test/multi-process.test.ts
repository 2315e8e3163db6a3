import t from 'tap';
import { startServer } from './helpers/harness';

// Two servers on one deployment (same schema, same Redis prefix), as two
// processes would be: a change made through one is in force on the other at once.
t.test('config changes reach every process before the next event', async (t) => {
  const a = await startServer(t);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  await a.metrics(['first']);
  t.equal((await b.event('first', { user: { id: 'u' }, value: 1 })).status, 201, 'b loads what a created');
  t.equal((await b.event('second', { user: { id: 'u' }, value: 1 })).status, 404);

  // b holds a copy now; a adds a metric and an attribute.
  await a.metrics(['second']);
  await a.attributes([{ key: 'plan', type: 'user' }]);
  const r = await b.event('second', { user: { id: 'u', attributes: { plan: 'pro' } }, value: 2 });
  t.equal(r.status, 201, 'b sees the new metric and attribute on its very next event');
  t.equal((await a.call('GET', '/v1/users/u/metrics/second')).body.current, 2, 'and a reads what b wrote');

  // A rename through b shows in a's reads.
  const m = (await b.call('GET', '/admin/v1/metrics')).body.find((x: { key: string }) => x.key === 'first');
  await b.call('PATCH', '/admin/v1/metrics', { body: [{ id: m.id, name: 'Renamed' }] });
  t.equal((await a.call('GET', '/v1/users/u/metrics/first')).body.name, 'Renamed');

  // A deleted metric stops taking events everywhere.
  await a.call('DELETE', `/admin/v1/metrics?ids=${m.id}`);
  t.equal((await b.event('first', { user: { id: 'u' }, value: 1 })).status, 404);
});

t.test('a deleted application key stops working in every process', async (t) => {
  const a = await startServer(t);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  await a.metrics(['m']);
  const k = (await a.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'u' }] })).body.created[0];
  t.equal((await b.event('m', { user: { id: 'u' }, value: 1 }, { key: k.key })).status, 201, 'b caches the key');
  await a.call('DELETE', `/admin/v1/application-api-keys?ids=${k.id}`);
  let status = 0;
  for (let i = 0; i < 50 && status !== 401; i++) {
    status = (await b.event('m', { user: { id: 'u' }, value: 1 }, { key: k.key })).status;
    if (status !== 401) await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(status, 401, 'the broadcast reached b');
});

t.test("an event without tz is dated in the user's stored zone, even by a process that never saw the user", async (t) => {
  const a = await startServer(t);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  await a.metrics(['m']);
  t.equal((await a.call('PUT', '/v1/users/kiri', { body: { tz: 'Pacific/Kiritimati' } })).status, 200);
  // 2026-03-10 23:00 UTC is already 2026-03-11 13:00 in Kiritimati (UTC+14).
  b.clock.set('2026-03-10T23:00:00Z');
  t.equal((await b.event('m', { user: { id: 'kiri' }, value: 3 })).status, 201);
  await b.drain();
  const s = await a.call('GET', '/v1/users/kiri/metrics/m/event-summary?aggregation=daily&startDate=2026-03-10&endDate=2026-03-11');
  t.same(s.body, [
    { date: '2026-03-10', total: 0, change: 0 },
    { date: '2026-03-11', total: 3, change: 3 },
  ]);
});
