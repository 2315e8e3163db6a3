import t from 'tap';
import { Client } from 'pg';
import { startServer } from './helpers/harness';

t.test('API keys and their scopes', async (t) => {
  const s = await startServer(t);
  await s.metrics(['words']);

  t.test('missing and unknown keys get the same 401', async (t) => {
    const none = await s.call('GET', '/v1/users/u1', { key: null });
    const unknown = await s.call('GET', '/v1/users/u1', { key: 'admin_nope.whatever' });
    const garbage = await s.call('GET', '/admin/v1/metrics', { key: 'garbage' });
    t.equal(none.status, 401);
    t.equal(unknown.status, 401);
    t.equal(garbage.status, 401);
    t.same(unknown.body, none.body);
    t.same(garbage.body, none.body);
  });

  t.test('the admin key works on both APIs', async (t) => {
    t.equal((await s.call('GET', '/admin/v1/metrics')).status, 200);
    t.equal((await s.event('words', { user: { id: 'u1' }, value: 1 })).status, 201);
    t.equal((await s.call('GET', '/v1/users/u1')).status, 200);
  });

  t.test('application keys act for their own user only', async (t) => {
    const created = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'alice' }, { userId: 'bob' }] });
    t.equal(created.status, 201);
    t.equal(created.body.created.length, 2);
    const alice = created.body.created[0];
    t.equal(alice.userId, 'alice');
    t.match(alice.key, new RegExp(`^${alice.prefix}\\.`));

    t.equal((await s.event('words', { user: { id: 'alice' }, value: 2 }, { key: alice.key })).status, 201);
    t.equal((await s.call('GET', '/v1/users/alice', { key: alice.key })).status, 200);
    // The right prefix with another secret (one character changed, one cut, one added) is unknown.
    const secret = alice.key.slice(alice.prefix.length + 1);
    const flipped = (secret[0] === 'a' ? 'b' : 'a') + secret.slice(1);
    for (const wrong of [flipped, secret.slice(0, -1), `${secret}x`]) {
      t.equal((await s.call('GET', '/v1/users/alice', { key: `${alice.prefix}.${wrong}` })).status, 401);
    }
    t.equal((await s.call('GET', '/v1/users/alice/metrics/words', { key: alice.key })).body.current, 2);

    const other = await s.event('words', { user: { id: 'bob' }, value: 2 }, { key: alice.key });
    t.equal(other.status, 403);
    t.type(other.body.error, 'string');
    t.equal((await s.call('GET', '/v1/users/bob', { key: alice.key })).status, 403);
    t.equal((await s.call('PUT', '/v1/users/bob', { key: alice.key, body: { name: 'B' } })).status, 403);
    t.equal((await s.call('POST', '/v1/users', { key: alice.key, body: { id: 'bob' } })).status, 403);
    // Nothing was written for bob by the refused calls.
    t.equal((await s.call('GET', '/v1/users/bob')).status, 404);

    t.equal((await s.call('GET', '/admin/v1/metrics', { key: alice.key })).status, 403);
    t.equal((await s.call('POST', '/admin/v1/application-api-keys', { key: alice.key, body: [{ userId: 'alice' }] })).status, 403);

    const del = await s.call('DELETE', `/admin/v1/application-api-keys?ids=${alice.id}`);
    t.same(del.body, { deleted: [{ id: alice.id }], issues: [] });
    t.equal((await s.call('GET', '/v1/users/alice', { key: alice.key })).status, 401, 'a deleted key stops working at once');

    const again = await s.call('DELETE', `/admin/v1/application-api-keys?ids=${alice.id}`);
    t.equal(again.body.deleted.length, 0);
    t.equal(again.body.issues[0].id, alice.id);
  });

  t.test('secrets are stored hashed, never in clear', async (t) => {
    const created = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'carol' }] });
    const { key, prefix } = created.body.created[0];
    const secret = key.slice(prefix.length + 1);
    const c = new Client({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel' });
    await c.connect();
    t.teardown(() => c.end());
    const { rows } = await c.query(`SELECT * FROM "${s.schema}".api_keys WHERE prefix = $1`, [prefix]);
    t.equal(rows.length, 1);
    t.notMatch(JSON.stringify(rows), secret);
    t.match(rows[0].secret_hash, /^[0-9a-f]{64}$/);
    // A right prefix with a wrong secret is refused.
    t.equal((await s.call('GET', '/v1/users/carol', { key: `${prefix}.wrong` })).status, 401);
  });

  t.test('batch key creation reports bad items', async (t) => {
    const r = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: '' }, { nope: 1 }] });
    t.equal(r.status, 200);
    t.equal(r.body.created.length, 0);
    t.same(r.body.issues.map((i: { index: number }) => i.index), [0, 1]);
  });
});
