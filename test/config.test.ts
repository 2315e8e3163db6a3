import t from 'tap';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/observability/log';
import { ensureServices } from '../src/ops/ensure-services';

t.test('an explicit unreachable address fails with one clear sentence', async (t) => {
  const log = createLogger('silent');
  const redisDown = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' });
  await t.rejects(ensureServices(redisDown, log), { message: /^Redis is not reachable at 127\.0\.0\.1:1: .*set REDIS_URL/ });
  const pgDown = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/laurel' });
  await t.rejects(ensureServices(pgDown, log), { message: /^Postgres is not reachable at 127\.0\.0\.1:1: .*set DATABASE_URL/ });
});

t.test('configuration is checked', async (t) => {
  t.throws(() => loadConfig({ PORT: 'eighty' }), { message: /PORT/ });
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), { message: /LOG_LEVEL/ });
  const c = loadConfig({});
  t.equal(c.port, 8080);
  t.equal(c.host, '0.0.0.0');
  t.equal(c.maxBodyBytes, 65536);
  t.equal(c.adminApiKey, undefined);
  t.equal(c.background, 'inline', 'one process does everything by default');
  t.equal(loadConfig({ WORKERS: '2', PORT: '8080' }).background, 'process');
  t.equal(loadConfig({ BACKGROUND: 'process' }).background, 'process');
  t.throws(() => loadConfig({ BACKGROUND: 'thread' }), { message: /BACKGROUND must be inline or process/ });
  t.throws(() => loadConfig({ WORKERS: '2', PORT: '8080', BACKGROUND: 'inline' }), { message: /BACKGROUND=inline needs WORKERS=1/ });
});
