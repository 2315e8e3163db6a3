import t from 'tap';
import { startServer } from './helpers/harness';

t.test('metrics admin', async (t) => {
  const s = await startServer(t);

  const c = await s.call('POST', '/admin/v1/metrics', {
    body: [
      { name: 'Invites Sent', key: 'invites-sent' },
      { name: 'Revenue', key: 'revenue', unitType: 'currency', units: 'usd' },
      { name: 'Bad key', key: 'no spaces' },
      { name: 'Bad currency', key: 'x', unitType: 'currency', units: 'DOLLARS' },
      { name: 'Dup', key: 'invites-sent' },
      { key: 'no-name' },
    ],
  });
  t.equal(c.status, 201);
  t.same(c.body.created.map((m: { key: string }) => m.key), ['invites-sent', 'revenue']);
  t.match(c.body.created[0], { name: 'Invites Sent', unitType: 'number', units: '' });
  t.match(c.body.created[1], { unitType: 'currency', units: 'USD' });
  t.same(c.body.issues.map((i: { index: number }) => i.index), [2, 3, 4, 5]);
  t.match(c.body.issues[2].message, /already in use/);
  t.match(c.body.issues[3].message, /item\.name/);
  const [invites, revenue] = c.body.created;

  t.same((await s.call('GET', `/admin/v1/metrics/${invites.id}`)).body, invites);
  t.same((await s.call('GET', '/admin/v1/metrics')).body, [invites, revenue]);
  t.same((await s.call('GET', '/admin/v1/metrics?skip=1&limit=1')).body, [revenue]);

  const u = await s.call('PATCH', '/admin/v1/metrics', {
    body: [
      { id: invites.id, name: 'Invites Completed', units: 'invites' },
      { id: revenue.id, unitType: 'number', units: 'dollars' },
      { id: '00000000-0000-0000-0000-00000000abcd', name: 'x' },
    ],
  });
  t.equal(u.status, 200);
  t.match(u.body.updated, [{ name: 'Invites Completed', units: 'invites', key: 'invites-sent' }, { unitType: 'number', units: 'dollars' }]);
  t.match(u.body.issues, [{ id: '00000000-0000-0000-0000-00000000abcd', severity: 'error' }]);

  // A renamed metric is what the event path and reads see next.
  await s.event('invites-sent', { user: { id: 'u1' }, value: 3 });
  t.match((await s.call('GET', '/v1/users/u1/metrics/invites-sent')).body, { name: 'Invites Completed', current: 3 });

  const d = await s.call('DELETE', `/admin/v1/metrics?ids=${revenue.id}&ids=00000000-0000-0000-0000-00000000abcd`);
  t.same(d.body.deleted, [{ id: revenue.id }]);
  t.equal(d.body.issues.length, 1);
  t.equal((await s.event('revenue', { user: { id: 'u1' }, value: 3 })).status, 404, 'a deleted metric takes no events');
  t.equal((await s.call('DELETE', '/admin/v1/metrics')).status, 422, 'ids are required');
  t.equal((await s.call('DELETE', '/admin/v1/metrics?ids=nope')).status, 422);

  const tooMany = Array.from({ length: 101 }, (_, i) => ({ name: `m${i}`, key: `m${i}` }));
  t.equal((await s.call('POST', '/admin/v1/metrics', { body: tooMany })).status, 422);
});

t.test('attributes admin', async (t) => {
  const s = await startServer(t);
  const c = await s.call('POST', '/admin/v1/attributes', {
    body: [
      { name: 'Plan', key: 'plan', type: 'user' },
      { name: 'Device', key: 'device', type: 'event' },
      { name: 'Plan again', key: 'plan', type: 'event' },
      { name: 'Dup', key: 'plan', type: 'user' },
      { name: 'Bad', key: 'plan', type: 'group' },
    ],
  });
  t.equal(c.status, 201);
  t.same(c.body.created.map((a: { key: string; type: string }) => `${a.type}:${a.key}`), ['user:plan', 'event:device', 'event:plan']);
  t.same(c.body.issues.map((i: { index: number }) => i.index), [3, 4]);
  const plan = c.body.created[0];
  t.same((await s.call('GET', `/admin/v1/attributes/${plan.id}`)).body, plan);
  t.equal((await s.call('GET', '/admin/v1/attributes')).body.length, 3);

  const u = await s.call('PATCH', '/admin/v1/attributes', { body: [{ id: plan.id, name: 'Subscription Plan' }] });
  t.same(u.body.updated, [{ ...plan, name: 'Subscription Plan' }]);

  // The new attribute is usable at once; after deletion it is refused again.
  t.equal((await s.call('PUT', '/v1/users/u1', { body: { attributes: { plan: 'pro' } } })).status, 200);
  await s.call('DELETE', `/admin/v1/attributes?ids=${plan.id}`);
  t.equal((await s.call('GET', `/admin/v1/attributes/${plan.id}`)).status, 404);
  const refused = await s.call('PUT', '/v1/users/u1', { body: { attributes: { plan: 'free' } } });
  t.equal(refused.status, 422);
  t.match(refused.body.error, /plan/);
});
