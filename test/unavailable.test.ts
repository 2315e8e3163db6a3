import t from 'tap';
import { startBehindRedisRelay, startServer } from './helpers/harness';
import { Relay } from './helpers/proxy';

const pgUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel');
const pgPort = Number(pgUrl.port || 5432);

t.test('503 with Retry-After while Redis is unreachable, and recovery', async (t) => {
  const { s, relay } = await startBehindRedisRelay(t);
  await s.metrics(['m']);
  t.equal((await s.event('m', { user: { id: 'u' }, value: 1 })).status, 201);

  await relay.cut();
  const r = await s.event('m', { user: { id: 'u' }, value: 1 });
  t.equal(r.status, 503);
  t.equal(r.headers.get('retry-after'), '1');
  t.type(r.body.error, 'string');
  t.equal((await s.call('GET', '/v1/users/u')).status, 503);
  const ready = await s.call('GET', '/readyz', { key: null });
  t.equal(ready.status, 503);
  t.match(ready.body, { redis: false, postgres: true });

  await relay.restore();
  let after = 0;
  for (let i = 0; i < 50 && after !== 201; i++) {
    await new Promise((res) => setTimeout(res, 100));
    after = (await s.event('m', { user: { id: 'u' }, value: 1 })).status;
  }
  t.equal(after, 201, 'events flow again once Redis is back');
  t.equal((await s.call('GET', '/v1/users/u/metrics/m')).body.current, 2, 'the refused event was not applied');
});

/** A server whose Postgres connection runs through a relay the test can cut. */
async function behindPgRelay(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}) {
  const relay = new Relay(pgPort);
  const port = await relay.start();
  const url = new URL(pgUrl);
  url.port = String(port);
  t.teardown(() => relay.cut());
  const s = await startServer(t, { DATABASE_URL: url.toString(), ...env });
  return { relay, s };
}

t.test('503 while Postgres is unreachable; events keep flowing', async (t) => {
  const { relay, s } = await behindPgRelay(t);
  await s.metrics(['m']);
  t.equal((await s.event('m', { user: { id: 'u' }, value: 1 })).status, 201);

  await relay.cut();
  const admin = await s.call('POST', '/admin/v1/metrics', { body: [{ name: 'N', key: 'n' }] });
  t.equal(admin.status, 503);
  t.equal(admin.headers.get('retry-after'), '1');
  t.equal((await s.event('m', { user: { id: 'u' }, value: 1 })).status, 201, 'the event path does not need Postgres');
  t.equal((await s.call('GET', '/readyz', { key: null })).body.postgres, false);

  await relay.restore();
  await s.app.flusher.drain();
  t.equal((await s.call('GET', '/admin/v1/metrics')).body.length, 1, 'the refused create left nothing behind');
});

t.test('past the backlog limit events get 503, and flow again once Postgres catches up', async (t) => {
  const { relay, s } = await behindPgRelay(t, { MAX_BACKLOG: '3' });
  await s.metrics(['m']);
  await relay.cut();
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await s.event('m', { user: { id: 'u' }, value: 1 })).status);
  t.same(statuses, [201, 201, 201, 503, 503], 'three records may wait; then refuse rather than risk them');
  const ready = await s.call('GET', '/readyz', { key: null });
  t.match(ready.body, { postgres: false, flusherLag: { entries: 3 } });
  await relay.restore();
  await s.app.flusher.drain();
  t.equal((await s.event('m', { user: { id: 'u' }, value: 1 })).status, 201);
  t.equal((await s.call('GET', '/v1/users/u/metrics/m')).body.current, 4, 'refused events were not applied');
  t.equal((await s.call('GET', '/readyz', { key: null })).body.flusherLag.entries <= 1, true);
});

t.test('once Postgres is back, a drain writes what a failed batch held and what came after', async (t) => {
  const { relay, s } = await behindPgRelay(t);
  await s.metrics(['m']);
  await s.app.flusher.stop(); // this test runs the flusher by hand
  await relay.cut();
  t.equal((await s.event('m', { user: { id: 'u' }, value: 1 })).status, 201);
  await t.rejects(s.app.flusher.drain(), 'the batch of the first event cannot be written');
  for (let i = 0; i < 2; i++) t.equal((await s.event('m', { user: { id: 'u' }, value: 1 })).status, 201);
  await relay.restore();
  await s.app.flusher.drain();
  t.match((await s.call('GET', '/readyz', { key: null })).body, { flusherLag: { entries: 0, seconds: 0 }, flusher: 'ok', deadLetters: 0 }, 'an outage is retried, never dead-lettered');
  const events = await s.app.ctx.db.query('SELECT count(*)::int AS n FROM events');
  t.equal(events.rows[0].n, 3);
});
