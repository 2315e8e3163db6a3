import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { purgePrefix, sharedRedis, startServer, TestServer } from './helpers/harness';
import { scanKeys } from '../src/redis/client';
import { LAST_CHANGE_FIELD } from '../src/domain/user-hash';

/** Every read a user of the sample can make, as served now. */
async function reads(s: TestServer, users: string[]) {
  const out: Record<string, unknown> = {};
  const get = async (path: string) => {
    const r = await s.call('GET', path);
    out[path] = [r.status, r.body];
  };
  for (const u of users) {
    for (const p of ['', '/metrics', '/metrics/steps', '/points/xp?awards=20', '/points/xp/boosts', '/achievements?includeIncomplete=true', '/streak?historyPeriods=10', '/leaderboards/daily-top', '/leaderboards/all-time']) {
      await get(`/v1/users/${u}${p}`);
    }
  }
  for (const p of ['/v1/achievements', '/v1/leaderboards', '/v1/leaderboards/all-time?limit=50', '/v1/leaderboards/daily-top', '/v1/points/xp/summary', '/v1/points/xp/level-summary', `/v1/streaks?userIds=${users.join(',')}`]) {
    await get(p);
  }
  return out;
}

/**
 * The Redis state a restore rebuilds: each user's hash (but `lc`, the stream
 * position of the user's last change, which a rebuilt Redis has no use for:
 * all of it is in Postgres) and each leaderboard's members with their scores.
 */
async function redisState(s: TestServer, users: string[]): Promise<Record<string, unknown>> {
  const r = s.app.ctx.redis;
  const tk = s.app.ctx.keys.tenant(0);
  const out: Record<string, unknown> = {};
  for (const u of users) {
    const h = await r.hgetall(tk.user(u));
    delete h[LAST_CHANGE_FIELD];
    out[`user ${u}`] = Object.fromEntries(Object.entries(h).sort(([x], [y]) => (x < y ? -1 : 1)));
  }
  const boards: string[] = [];
  await scanKeys(r, `${tk.boardPrefix}*`, async (keys) => {
    boards.push(...keys);
  });
  for (const k of boards.sort()) out[`board ${k.slice(tk.boardPrefix.length)}`] = await r.zrange(k, 0, -1, 'WITHSCORES');
  return out;
}

t.test('an emptied Redis is rebuilt from Postgres and every read answers as before', async (t) => {
  const a = await startServer(t);
  await a.attributes([{ key: 'team', type: 'user' }]);
  const { steps } = await a.metrics(['steps']);
  await a.call('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp', maxPoints: 500,
      levels: [{ name: 'One', key: 'one', points: 10 }, { name: 'Two', key: 'two', points: 100 }],
      boosts: [{ name: 'x2', start: '2026-03-01', multiplier: 2 }],
      triggers: [
        { type: 'metric', metricId: steps!.id, metricThreshold: 100, points: 5, status: 'active' },
        { type: 'user_creation', points: 1, status: 'active' },
        { type: 'time', timeUnit: 'days', timeInterval: 1, points: 3, status: 'active' },
      ],
    }],
  });
  await a.call('POST', '/admin/v1/achievements', {
    body: [
      { key: 'k1', name: '1k steps', trigger: 'metric', metricId: steps!.id, metricValue: 1000, status: 'active' },
      { key: 'hello', name: 'Hello', trigger: 'api', status: 'active' },
      { key: 'streak3', name: 'Three days', trigger: 'streak', streakLength: 3, status: 'active' },
    ],
  });
  await a.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: steps!.id, threshold: 100 }], initialFreezes: 1, maxFreezes: 3, freezeAutoEarnInterval: 2, freezeAutoEarnAmount: 1 } });
  await a.call('POST', '/admin/v1/leaderboards', {
    body: [
      { key: 'all-time', name: 'All time', rankBy: 'metric', metricId: steps!.id, start: '2026-03-01', status: 'active', maxParticipants: 3 },
      { key: 'daily-top', name: 'Daily', rankBy: 'metric', metricId: steps!.id, start: '2026-03-01', runUnit: 'day', runInterval: 1, status: 'active' },
    ],
  });

  const users = ['u1', 'u2', 'u3', 'u4'];
  const days = ['2026-03-10', '2026-03-11', '2026-03-13', '2026-03-14'];
  for (const [d, day] of days.entries()) {
    for (const [i, u] of users.entries()) {
      if ((i + d) % 3 === 2) continue; // gaps, so freezes and losses happen
      a.clock.set(`${day}T${String(8 + i).padStart(2, '0')}:00:00Z`);
      const r = await a.event('steps', { user: { id: u, tz: 'Europe/Berlin', attributes: { team: i % 2 ? 'odd' : 'even' } }, value: 150 * (i + 1) + d * 7.5 }, { headers: { 'Idempotency-Key': `${u}-${day}` } });
      t.equal(r.status, 201);
    }
    await a.app.scheduler.runOnce();
  }
  await a.call('POST', '/v1/achievements/hello/complete', { body: { user: { id: 'u2' } } });
  await a.call('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: 'u3' }] } });
  const replayed = await a.event('steps', { user: { id: 'u1' }, value: 150 }, { headers: { 'Idempotency-Key': 'u1-2026-03-10' } });
  t.equal(replayed.status, 202);

  await a.drain();
  const before = await reads(a, users);
  const stateBefore = await redisState(a, users);

  // Redis loses everything; a new server starts on the same database.
  await a.app.close();
  await purgePrefix(a.prefix);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  b.clock.set(a.clock.now());
  const after = await reads(b, users);
  for (const key of Object.keys(before)) t.same(after[key], before[key], key);
  // Underneath the reads, the state itself: every field of every user hash, every board member and score.
  const stateAfter = await redisState(b, users);
  for (const key of Object.keys(stateBefore)) t.same(stateAfter[key], stateBefore[key], `restored field by field: ${key}`);
  t.same(Object.keys(stateAfter).sort(), Object.keys(stateBefore).sort(), 'no board or user more or less');

  // Idempotency keys survived, and the state carries on where it was.
  const again = await b.event('steps', { user: { id: 'u1' }, value: 150 }, { headers: { 'Idempotency-Key': 'u1-2026-03-10' } });
  t.equal(again.status, 202);
  t.equal(again.body.eventId, replayed.body.eventId);
  const next = await b.event('steps', { user: { id: 'u1' }, value: 1 });
  t.equal(next.body.total, (before['/v1/users/u1/metrics/steps'] as [number, { current: number }])[1].current + 1);

  // `npm run restore` does the same on demand.
  await b.drain();
  await b.app.close();
  await purgePrefix(a.prefix);
  const cli = spawnSync(process.execPath, [path.resolve(__dirname, '../src/ops/restore-cli.js')], {
    env: { ...process.env, DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  t.equal(cli.status, 0, cli.stderr);
  t.match(cli.stdout, /restored 4 users of \d+ tenants/);
  const r = await sharedRedis(t);
  t.equal(await r.hget(a.app.ctx.keys.tenant(0).user('u1'), 'm1'), String(next.body.total));
  t.ok(await r.exists(a.app.ctx.keys.restored), 'the marker tells servers not to rebuild again');
});
