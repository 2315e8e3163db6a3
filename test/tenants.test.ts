import t from 'tap';
import { keysUnder, startServer } from './helpers/harness';

t.test('tenants', async (t) => {
  const s = await startServer(t);

  t.test('create, list, get, update, delete', async (t) => {
    const c = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }, { customerId: 'globex', name: 'Globex' }] });
    t.equal(c.status, 201);
    t.equal(c.body.issues.length, 0);
    const [acme, globex] = c.body.created;
    t.match(acme, { customerId: 'acme', name: 'Acme', status: 'active', id: /^[0-9a-f-]{36}$/ });
    t.ok(!Number.isNaN(Date.parse(acme.created)));

    const dup = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Again' }] });
    t.equal(dup.status, 200, 'nothing created');
    t.same(dup.body.created, []);
    t.match(dup.body.issues[0], { index: 0, severity: 'error', message: /acme/ });

    const list = await s.call('GET', '/admin/v1/tenants?limit=10');
    t.same(list.body.map((x: { customerId: string }) => x.customerId), ['acme', 'globex'], 'the default tenant is not listed');
    t.same((await s.call('GET', '/admin/v1/tenants?limit=1&skip=1')).body.map((x: { customerId: string }) => x.customerId), ['globex']);
    t.equal((await s.call('GET', '/admin/v1/tenants?limit=101')).status, 422);

    t.same((await s.call('GET', `/admin/v1/tenants/${acme.id}`)).body, acme);
    t.equal((await s.call('GET', '/admin/v1/tenants/00000000-0000-0000-0000-00000000abcd')).status, 404);
    t.equal((await s.call('GET', '/admin/v1/tenants/not-a-uuid')).status, 422);

    const up = await s.call('PATCH', '/admin/v1/tenants', { body: [{ id: globex.id, name: 'Globex Inc' }, { id: acme.id, customerId: 'globex' }] });
    t.equal(up.status, 200);
    t.equal(up.body.updated.length, 1);
    t.equal(up.body.updated[0].name, 'Globex Inc');
    t.match(up.body.issues[0], { id: acme.id, message: /globex/ });

    const del = await s.call('DELETE', `/admin/v1/tenants?ids=${globex.id},00000000-0000-0000-0000-00000000abcd`);
    t.same(del.body.deleted, [{ id: globex.id }]);
    t.equal(del.body.issues.length, 1);
    t.equal((await s.call('GET', `/admin/v1/tenants/${globex.id}`)).status, 404);
    t.equal((await s.call('GET', '/admin/v1/metrics', { tenant: 'globex' })).status, 404, 'its customerId no longer resolves');
  });

  t.test('an unknown Tenant-ID is 404', async (t) => {
    const r = await s.call('GET', '/admin/v1/metrics', { tenant: 'nobody' });
    t.equal(r.status, 404);
    t.match(r.body.error, /nobody/);
    t.equal((await s.event('x', { user: { id: 'u' }, value: 1 }, { tenant: 'nobody' })).status, 404);
  });

  t.test('nothing of one tenant is visible from another', async (t) => {
    await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 't-one', name: 'One' }, { customerId: 't-two', name: 'Two' }] });
    const m1 = await s.metrics(['steps'], 't-one');
    const m2 = await s.metrics(['steps'], 't-two');
    t.not(m1.steps!.id, m2.steps!.id, 'the same key lives on in each tenant');
    await s.metrics(['only-default']);

    t.equal((await s.event('steps', { user: { id: 'same' }, value: 5 }, { tenant: 't-one' })).body.total, 5);
    t.equal((await s.event('steps', { user: { id: 'same' }, value: 7 }, { tenant: 't-two' })).body.total, 7);
    t.equal((await s.event('steps', { user: { id: 'same' }, value: 1 }, { tenant: 't-one' })).body.total, 6);
    t.equal((await s.event('steps', { user: { id: 'same' }, value: 1 })).status, 404, 'the default tenant has no such metric');
    t.equal((await s.event('only-default', { user: { id: 'same' }, value: 1 }, { tenant: 't-one' })).status, 404);

    t.equal((await s.call('GET', '/v1/users/same/metrics/steps', { tenant: 't-two' })).body.current, 7);
    t.equal((await s.call('GET', '/v1/users/same')).status, 404, 'the user was never seen by the default tenant');
    t.equal((await s.call('GET', `/admin/v1/metrics/${m1.steps!.id}`, { tenant: 't-two' })).status, 404);
    t.same((await s.call('GET', '/admin/v1/metrics', { tenant: 't-two' })).body.map((m: { id: string }) => m.id), [m2.steps!.id]);

    // An application key of tenant one cannot reach tenant two.
    const k = await s.call('POST', '/admin/v1/application-api-keys', { tenant: 't-one', body: [{ userId: 'same' }] });
    const key = k.body.created[0].key;
    t.equal((await s.call('GET', '/v1/users/same/metrics/steps', { key })).body.current, 6, 'without Tenant-ID the key uses its own tenant');
    t.equal((await s.call('GET', '/v1/users/same/metrics/steps', { key, tenant: 't-two' })).status, 403);
  });

  t.test('deleting a tenant removes its hot state', async (t) => {
    const c = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'doomed', name: 'Doomed' }] });
    const doomed = c.body.created[0];
    const { m } = await s.metrics(['m'], 'doomed');
    await s.call('POST', '/admin/v1/points', { tenant: 'doomed', body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
    await s.call('POST', '/admin/v1/achievements', { tenant: 'doomed', body: [{ key: 'one', name: 'One', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
    await s.event('m', { user: { id: 'u' }, value: 1 }, { tenant: 'doomed' });
    await s.app.flusher.drain();
    const rowsOf = async () => {
      const out: Record<string, number> = {};
      for (const table of ['events', 'awards', 'achievement_completions', 'user_state', 'users']) {
        const { rows } = await s.app.ctx.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [doomed.id]);
        out[table] = rows[0].n;
      }
      return out;
    };
    t.same(await rowsOf(), { events: 1, awards: 1, achievement_completions: 1, user_state: 1, users: 1 });
    const slotKeys = (await keysUnder(s.prefix)).filter((k) => k.includes(':u:u'));
    t.ok(slotKeys.length >= 1);
    const before = (await keysUnder(s.prefix)).length;
    await s.call('DELETE', `/admin/v1/tenants?ids=${doomed.id}`);
    const after = await keysUnder(s.prefix);
    t.ok(after.length < before);
    t.notOk(after.some((k) => slotKeys.some((sk) => k.startsWith(sk.split(':u:')[0]!))), 'no key of the tenant is left');
    t.same(await rowsOf(), { events: 0, awards: 0, achievement_completions: 0, user_state: 0, users: 0 }, 'no row of the tenant is left');
  });
});
