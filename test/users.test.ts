import t from 'tap';
import { startServer, START } from './helpers/harness';

t.test('users', async (t) => {
  const s = await startServer(t);
  await s.attributes([{ key: 'plan', type: 'user' }, { key: 'role', type: 'user' }]);
  await s.metrics(['words', 'lessons']);

  t.test('create, read, identify, update', async (t) => {
    const c = await s.call('POST', '/v1/users', { body: { id: 'u1', email: 'u1@example.com', name: 'Una', tz: 'europe/london', attributes: { plan: 'free' } } });
    t.equal(c.status, 201);
    t.same(c.body, {
      id: 'u1', email: 'u1@example.com', name: 'Una', tz: 'Europe/London', deviceTokens: null, subscribeToEmails: true,
      attributes: { plan: 'free' }, control: false, created: new Date(START).toISOString(), updated: new Date(START).toISOString(),
    });
    t.same((await s.call('GET', '/v1/users/u1')).body, c.body);

    s.clock.advance(60_000);
    const p = await s.call('PATCH', '/v1/users/u1', { body: { attributes: { role: 'dev' }, deviceTokens: ['tok'], subscribeToEmails: false } });
    t.equal(p.status, 200);
    t.same(p.body.attributes, { plan: 'free', role: 'dev' }, 'attributes merge');
    t.same(p.body.deviceTokens, ['tok']);
    t.equal(p.body.subscribeToEmails, false);
    t.equal(p.body.updated, new Date(Date.parse(START) + 60_000).toISOString());
    t.equal(p.body.created, c.body.created);

    t.equal((await s.call('PATCH', '/v1/users/ghost', { body: { name: 'x' } })).status, 404, 'PATCH does not create');
    t.equal((await s.call('GET', '/v1/users/ghost')).status, 404);
    const put = await s.call('PUT', '/v1/users/ghost', { body: { name: 'Now real' } });
    t.equal(put.status, 200, 'PUT identifies (creates)');
    t.equal(put.body.name, 'Now real');
    t.equal((await s.call('PUT', '/v1/users/ghost', { body: { tz: null } })).body.tz, null);
  });

  t.test('bad input is refused and nothing is applied', async (t) => {
    const tz = await s.call('PUT', '/v1/users/u2', { body: { tz: 'Mars/Olympus_Mons' } });
    t.equal(tz.status, 422);
    t.match(tz.body.error, /tz/);
    const attr = await s.call('PUT', '/v1/users/u2', { body: { name: 'Two', attributes: { plan: 'x', colour: 'red' } } });
    t.equal(attr.status, 422);
    t.match(attr.body.error, /colour/);
    t.equal((await s.call('GET', '/v1/users/u2')).status, 404, 'the refused call created nothing');
    t.equal((await s.call('POST', '/v1/users', { body: { id: '' } })).status, 422);
    t.equal((await s.call('POST', '/v1/users', { body: { id: 'u3', email: 'not-an-email' } })).status, 422);
  });

  t.test('metric totals of a user', async (t) => {
    await s.event('words', { user: { id: 'u1' }, value: 10.5 });
    const all = await s.call('GET', '/v1/users/u1/metrics');
    t.equal(all.status, 200);
    t.match(all.body, [{ key: 'words', current: 10.5, achievements: [] }, { key: 'lessons', current: 0 }]);
    t.match((await s.call('GET', '/v1/users/u1/metrics/words')).body, { key: 'words', name: 'Metric words', current: 10.5 });
    t.equal((await s.call('GET', '/v1/users/u1/metrics/nope')).status, 404);
    t.equal((await s.call('GET', '/v1/users/ghost2/metrics')).status, 404);
  });
});
