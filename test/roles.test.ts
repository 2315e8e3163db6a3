import t from 'tap';
import { sharedRedis, startServer } from './helpers/harness';
import { until } from './helpers/process';
import { loadConfig } from '../src/config';

// With WORKERS=N the HTTP workers and the background process are started with
// complementary roles (src/main.ts); here both run in this one process.
t.test('roles: an HTTP-only server leaves the stream to a background-only one', async (t) => {
  const web = await startServer(t, {}, { http: true, background: false });
  t.same(web.app.roles, { http: true, background: false, flushers: 1 });
  await web.metrics(['m']);
  for (let i = 0; i < 5; i++) t.equal((await web.event('m', { user: { id: `u${i}` }, value: 1 })).status, 201);
  web.app.webhooks.kick(); // harmless where the dispatcher does not run

  const r = await sharedRedis(t);
  const stream = web.app.ctx.keys.tenant(0).stream;
  const events = async () => Number((await web.app.ctx.db.query('SELECT count(*) AS n FROM events')).rows[0].n);
  // Nothing flushes yet: the records wait in Redis, and /readyz says so.
  t.equal(await r.xlen(stream), 5);
  t.equal(await events(), 0, 'an HTTP-only server writes nothing to Postgres');
  t.match((await web.call('GET', '/readyz', { key: null })).body, { status: 'ok', flusherLag: { entries: 5 } });

  const bg = await startServer(t, { DATABASE_SCHEMA: web.schema, REDIS_KEY_PREFIX: web.prefix, ADMIN_API_KEY: web.adminKey }, { http: false, background: true, flushers: 2 });
  t.same(bg.app.roles, { http: false, background: true, flushers: 2 });
  t.equal(bg.app.port, 0, 'a background-only server does not listen');
  t.same(bg.app.routes, []);
  await until('the background server to flush', async () => (await events()) >= 5);
  t.equal(await events(), 5, 'the background server flushes on its own');
  t.equal(await r.xlen(stream), 0);
  t.match((await web.call('GET', '/readyz', { key: null })).body, { flusherLag: { entries: 0 } });
});

t.test('FLUSHERS: one per worker by default, and bounded', async (t) => {
  const flushers = (env: Record<string, string>) => loadConfig({ PORT: '8080', ...env }).flushers;
  t.equal(flushers({}), 1, 'a single process runs one flusher');
  t.equal(flushers({ WORKERS: '4' }), 4);
  t.equal(flushers({ WORKERS: '4', FLUSHERS: '1' }), 1, 'an explicit setting wins');
  t.throws(() => flushers({ FLUSHERS: '0' }), /FLUSHERS must be an integer from 1 to 64/);
});
