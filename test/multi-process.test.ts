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
