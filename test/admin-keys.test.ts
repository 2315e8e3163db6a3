import t from 'tap';
import { migrate } from '../src/store/migrations';
import { ensureAdminKey } from '../src/store/bootstrap';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/observability/log';
import { systemClock } from '../src/clock';
import { schemaPool, startServer, TestServer } from './helpers/harness';
import { freshGet, processDeployment, spawnServer, until } from './helpers/process';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';
const KEYS = '/admin/v1/admin-api-keys';

interface Key {
  id: string;
  name: string;
  prefix: string;
  status: string;
  created: string;
  lastUsed: string | null;
  source: string;
  key?: string;
}

const list = async (s: TestServer, key?: string): Promise<Key[]> => (await s.call('GET', KEYS, { key })).body;
const listed = async (s: TestServer, id: string) => (await list(s)).find((k) => k.id === id);
const uses = async (s: TestServer, key: string) => (await s.call('GET', '/admin/v1/metrics', { key })).status;

t.test('an admin key from creation to deletion, seen by two processes of one deployment', async (t) => {
  const a = await startServer(t);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });

  const env = (await list(a)).find((k) => k.source === 'environment')!;
  t.match(env, { name: 'ADMIN_API_KEY', prefix: 'admin_test', status: 'active' }, 'ADMIN_API_KEY is listed, with the readable part of its key');

  // A second stored key, so the first may be revoked (the last active one may not).
  t.equal((await a.call('POST', KEYS, { body: { name: 'spare' } })).status, 201);
  const made = await a.call('POST', KEYS, { body: { name: 'deploy bot' } });
  t.equal(made.status, 201);
  const k = made.body as Key;
  t.match(k, { name: 'deploy bot', status: 'active', source: 'api', lastUsed: null });
  t.match(k.key, /^admin_[A-Za-z0-9]{10}\.[A-Za-z0-9]{40}$/, 'the key is `{prefix}.{body}`');
  t.equal(k.key!.split('.')[0], k.prefix);
  t.notOk((await list(a)).some((x) => 'key' in x), 'a listing never shows a key');
  t.equal((await a.call('GET', `${KEYS}/${k.id}`)).body.key, undefined);

  t.equal(await uses(a, k.key!), 200);
  t.equal(await uses(b, k.key!), 200, 'b holds the key in its cache now');
  const used = await until('lastUsed to be written', async () => (await listed(a, k.id))?.lastUsed);
  t.equal(used, '2026-03-10T12:00:00.000Z', 'lastUsed, to the minute');
  a.clock.advance(30_000);
  await uses(a, k.key!);
  t.equal((await listed(a, k.id))!.lastUsed, used, 'within the minute nothing is written');
  a.clock.advance(60_000);
  await uses(a, k.key!);
  t.equal(await until('lastUsed to move', async () => (await listed(a, k.id))!.lastUsed !== used && (await listed(a, k.id))!.lastUsed), '2026-03-10T12:01:00.000Z');

  // Rotation: prefix and body both new; the old key is refused everywhere.
  const rotated = await a.call('POST', `${KEYS}/${k.id}/rotate`);
  t.equal(rotated.status, 200);
  const r = rotated.body as Key;
  t.equal(r.id, k.id, 'the same key record');
  t.not(r.prefix, k.prefix, 'a new prefix');
  t.not(r.key!.split('.')[1], k.key!.split('.')[1], 'a new body');
  t.equal(await uses(a, k.key!), 401, 'the old key is refused at once');
  t.equal(await until('b to drop the old key', async () => (await uses(b, k.key!)) === 401 && 401, 1000), 401, 'and by the other process within a second');
  t.equal(await uses(b, r.key!), 200, 'the new key works');

  // Revoke and re-activate: the same key value.
  const revoked = await a.call('PATCH', `${KEYS}/${k.id}`, { body: { status: 'inactive' } });
  t.equal(revoked.status, 200);
  t.match(revoked.body, { id: k.id, prefix: r.prefix, status: 'inactive' });
  t.equal(await uses(a, r.key!), 401);
  t.equal(await until('b to refuse the revoked key', async () => (await uses(b, r.key!)) === 401 && 401, 1000), 401);
  t.equal((await a.call('PATCH', `${KEYS}/${k.id}`, { body: { status: 'active' } })).body.status, 'active');
  t.equal(await uses(a, r.key!), 200, 're-activated, the same key works again');
  t.equal(await until('b to accept it again', async () => (await uses(b, r.key!)) === 200 && 200, 1000), 200);

  // Deletion for good.
  const gone = await a.call('DELETE', `${KEYS}/${k.id}`);
  t.equal(gone.status, 200);
  t.same(gone.body.deleted, [{ id: k.id }]);
  t.equal(await uses(a, r.key!), 401);
  t.equal(await until('b to refuse the deleted key', async () => (await uses(b, r.key!)) === 401 && 401, 1000), 401);
  t.notOk(await listed(a, k.id));
  t.equal((await a.call('DELETE', `${KEYS}/${k.id}`)).status, 404);
});

t.test('nobody locks themselves out: 409 for the calling key, the last active key and ADMIN_API_KEY', async (t) => {
  const s = await startServer(t);
  const env = (await list(s)).find((k) => k.source === 'environment')!;
  const one = (await s.call('POST', KEYS, { body: { name: 'one' } })).body as Key;
  const two = (await s.call('POST', KEYS, { body: { name: 'two' } })).body as Key;

  for (const [target, what, why] of [[one, 'the calling key', /the key it is made with/], [env, 'ADMIN_API_KEY', /ADMIN_API_KEY.*environment variable/]] as const) {
    for (const [method, path, body] of [
      ['POST', `${KEYS}/${target.id}/rotate`, undefined],
      ['PATCH', `${KEYS}/${target.id}`, { status: 'inactive' }],
      ['DELETE', `${KEYS}/${target.id}`, undefined],
    ] as const) {
      const r = await s.call(method, path, { key: one.key, body });
      t.equal(r.status, 409, `${method} on ${what}`);
      t.match(r.body.error, why);
    }
  }
  t.equal(await uses(s, one.key!), 200, 'the key refused to act on itself still works');

  // With ADMIN_API_KEY (not counted: the variable may go), revoke `two`; `one` is then the last active stored key.
  t.equal((await s.call('PATCH', `${KEYS}/${two.id}`, { body: { status: 'inactive' } })).status, 200);
  const last = await s.call('PATCH', `${KEYS}/${one.id}`, { body: { status: 'inactive' } });
  t.equal(last.status, 409);
  t.match(last.body.error, /last active admin key/);
  t.equal((await s.call('DELETE', `${KEYS}/${one.id}`)).status, 409, 'nor deleted');
  t.equal((await s.call('DELETE', `${KEYS}/${two.id}`)).status, 200, 'an inactive key can go');
  t.equal((await s.call('POST', `${KEYS}/${one.id}/rotate`)).status, 200, 'the last one can be rotated');
  t.equal((await listed(s, one.id))!.status, 'active');
});

t.test('at most 10 admin keys; input is checked; application keys cannot manage them', async (t) => {
  const s = await startServer(t);
  // ADMIN_API_KEY counts as one.
  for (let i = 1; i < 10; i++) t.equal((await s.call('POST', KEYS, { body: { name: `k${i}` } })).status, 201);
  const over = await s.call('POST', KEYS, { body: { name: 'eleventh' } });
  t.equal(over.status, 422);
  t.match(over.body.error, /at most 10 admin keys/);
  t.equal((await list(s)).length, 10);

  t.equal((await s.call('POST', KEYS, { body: { name: '' } })).status, 422);
  t.equal((await s.call('POST', KEYS, { body: {} })).status, 422);
  const one = (await list(s)).find((k) => k.source === 'api')!;
  t.equal((await s.call('PATCH', `${KEYS}/${one.id}`, { body: { status: 'gone' } })).status, 422);
  t.equal((await s.call('PATCH', `${KEYS}/not-a-uuid`, { body: { status: 'inactive' } })).status, 422);
  t.equal((await s.call('GET', KEYS, { key: null })).status, 401);

  await s.metrics(['m']);
  const app = (await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'u' }] })).body.created[0].key;
  t.equal((await s.call('GET', KEYS, { key: app })).status, 403);
  t.equal((await s.call('DELETE', `${KEYS}/${one.id}`, { key: app })).status, 403);
});

t.test('the bootstrap key is listed as such, and rotated and revoked like any other', async (t) => {
  const { schema, db } = schemaPool(t, 'test_keys');
  await migrate(db, schema);
  const printed: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => (printed.push(String(chunk)), true)) as typeof process.stdout.write;
  try {
    await ensureAdminKey(db, loadConfig({ DATABASE_URL, DATABASE_SCHEMA: schema }), systemClock, createLogger('silent'));
  } finally {
    process.stdout.write = write;
  }
  const boot = printed.join('').match(/admin_[A-Za-z0-9]+\.[A-Za-z0-9]+/)![0];

  const s = await startServer(t, { DATABASE_SCHEMA: schema, ADMIN_API_KEY: '' });
  const keys = await list(s, boot);
  t.equal(keys.length, 1, 'no ADMIN_API_KEY: nothing of source environment');
  t.match(keys[0], { source: 'bootstrap', status: 'active', prefix: boot.split('.')[0] });
  const other = (await s.call('POST', KEYS, { key: boot, body: { name: 'ops' } })).body as Key;
  const rotated = await s.call('POST', `${KEYS}/${keys[0]!.id}/rotate`, { key: other.key });
  t.equal(rotated.status, 200);
  t.equal(rotated.body.source, 'bootstrap');
  t.equal(await uses(s, boot), 401, 'the printed key is refused once rotated');
  t.equal((await s.call('PATCH', `${KEYS}/${keys[0]!.id}`, { key: other.key, body: { status: 'inactive' } })).status, 200);
  t.equal(await uses(s, rotated.body.key), 401, 'and revoked');
});

t.test('WORKERS=2: rotation, revocation and deletion take effect on both workers within a second', async (t) => {
  const env = processDeployment(t, { WORKERS: '2' });
  const server = await spawnServer(env);
  t.teardown(async () => {
    server.proc.kill('SIGTERM');
    await server.exit;
  });
  const admin = env.ADMIN_API_KEY;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(server.url + path, {
      method, headers: { 'X-API-KEY': admin, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json()) as Key & { deleted?: unknown } };
  };
  // Fresh connections, so the kernel spreads them over both workers.
  const statuses = async (key: string) =>
    new Set(await Promise.all(Array.from({ length: 16 }, async () => (await freshGet(`${server.url}/admin/v1/metrics`, { 'X-API-KEY': key })).status)));
  const everywhere = (key: string, status: number) =>
    until(`every worker to answer ${status}`, async () => {
      const seen = await statuses(key);
      return seen.size === 1 && seen.has(status);
    }, 1000);

  t.equal((await call('POST', KEYS, { name: 'spare' })).status, 201);
  const k = (await call('POST', KEYS, { name: 'ci' })).body;
  t.same(await statuses(k.key!), new Set([200]), 'both workers take (and cache) the new key');
  const r = (await call('POST', `${KEYS}/${k.id}/rotate`)).body;
  t.ok(await everywhere(k.key!, 401), 'the old key: 401 on every worker within 1 s');
  t.same(await statuses(r.key!), new Set([200]), 'the new key works everywhere');

  t.equal((await call('PATCH', `${KEYS}/${k.id}`, { status: 'inactive' })).status, 200);
  t.ok(await everywhere(r.key!, 401), 'revoked: 401 everywhere within 1 s');
  t.equal((await call('PATCH', `${KEYS}/${k.id}`, { status: 'active' })).status, 200);
  t.ok(await everywhere(r.key!, 200), 're-activated, the same key works everywhere');

  const used = await until('lastUsed to be written', async () => (await call('GET', `${KEYS}/${k.id}`)).body.lastUsed);
  t.ok(Date.now() - Date.parse(used) < 5 * 60_000, 'lastUsed is recent');

  t.equal((await call('DELETE', `${KEYS}/${k.id}`)).status, 200);
  t.ok(await everywhere(r.key!, 401), 'deleted: 401 everywhere within 1 s');
});
