import t from 'tap';
import { TrophyApi, TrophyApiClient } from '@trophyso/node';
import { startServer } from './helpers/harness';
import { processDeployment, spawnServer, until } from './helpers/process';

// The official SDK parses responses strictly: if a required field is missing
// or mistyped, its call throws. Driving it against Laurel checks the wire shapes.
// One scenario end to end, as a user of the SDK would run it: against a
// server started as its own process, on the real clock.
t.test('@trophyso/node drives a whole scenario against a running server', async (t) => {
  const env = processDeployment(t);
  const server = await spawnServer(env);
  t.teardown(() => server.proc.kill('SIGTERM'));
  const key = env.ADMIN_API_KEY;
  const trophy = new TrophyApiClient({ apiKey: key, environment: { api: `${server.url}/v1`, admin: `${server.url}/admin/v1` } });
  // This SDK release has no configuration calls (but streaks): set up over HTTP.
  const configure = async (method: string, path: string, body: unknown) => {
    const r = await fetch(server.url + path, { method, headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const out = (await r.json()) as { created?: { id: string }[]; issues?: unknown[] };
    if (!r.ok || out.issues?.length) throw new Error(`${path}: ${r.status} ${JSON.stringify(out)}`);
    return out;
  };
  const [metric] = (await configure('POST', '/admin/v1/metrics', [{ key: 'lessons', name: 'Lessons' }])).created!;
  await configure('POST', '/admin/v1/attributes', [{ key: 'plan', name: 'Plan', type: 'user' }]);
  await configure('POST', '/admin/v1/points', [{
    key: 'xp', name: 'XP', levels: [{ key: 'rookie', name: 'Rookie', points: 10 }],
    triggers: [{ type: 'metric', metricId: metric!.id, metricThreshold: 1, points: 10, status: 'active' }],
  }]);
  await configure('POST', '/admin/v1/achievements', [
    { key: 'first', name: 'First lesson', trigger: 'metric', metricId: metric!.id, metricValue: 1, status: 'active' },
    { key: 'profile', name: 'Profile complete', trigger: 'api', status: 'active' },
  ]);
  await configure('POST', '/admin/v1/leaderboards', [{ key: 'all-time', name: 'All time', rankBy: 'metric', metricId: metric!.id, start: '2020-01-01', status: 'active' }]);
  await configure('PUT', '/admin/v1/streak', { enabled: true, frequency: 'daily', metrics: [{ metricId: metric!.id, threshold: 1 }], maxFreezes: 2 });

  // Users
  t.equal((await trophy.users.create({ id: 'ada', name: 'Ada', tz: 'UTC', attributes: { plan: 'pro' } })).name, 'Ada');
  t.equal((await trophy.users.identify('bob', { name: 'Bob', tz: 'UTC' })).name, 'Bob');
  t.equal((await trophy.users.update('bob', { email: 'bob@example.com' })).email, 'bob@example.com');
  t.same((await trophy.users.get('ada')).attributes, { plan: 'pro' });

  // Events, once each under an idempotency key
  const ev = await trophy.metrics.event('lessons', { user: { id: 'ada' }, value: 3, idempotencyKey: 'ada-1' });
  t.equal(ev.total, 3);
  t.equal(ev.idempotentReplayed, false);
  t.same(ev.achievements.map((a) => a.key), ['first']);
  t.equal(ev.points.xp!.total, 30);
  t.equal(ev.currentStreak.length, 1);
  t.equal(ev.leaderboards['all-time']!.rank, 1);
  const replay = await trophy.metrics.event('lessons', { user: { id: 'ada' }, value: 3, idempotencyKey: 'ada-1' });
  t.equal(replay.idempotentReplayed, true);
  t.equal(replay.total, 3, 'the retry is not counted again');
  await trophy.metrics.event('lessons', { user: { id: 'bob' }, value: 5, idempotencyKey: 'bob-1' });
  const today = ev.currentStreak.periodStart!; // a daily streak's period is the event's (UTC) date

  // Metrics and achievements
  t.equal((await trophy.users.singleMetric('ada', 'lessons')).current, 3);
  t.same((await trophy.users.allMetrics('bob')).map((m) => m.current), [5]);
  t.equal((await trophy.achievements.complete('profile', { user: { id: 'ada' } })).achievement.key, 'profile');
  t.same((await trophy.achievements.all()).map((a) => [a.key, a.completions]), [['first', 2], ['profile', 1]]);
  t.same((await trophy.users.achievements('ada')).map((a) => a.key), ['first', 'profile']);

  // Points
  const xp = await trophy.users.points('ada', 'xp');
  t.equal(xp.total, 30);
  t.equal((xp as unknown as { level?: { key: string } }).level?.key, 'rookie', 'level passes through (this SDK release does not type it)');
  t.equal((await trophy.points.system('xp')).triggers.length, 1);

  // Streaks
  t.equal((await trophy.users.streak('ada')).length, 1);
  t.same((await trophy.streaks.list({ userIds: ['ada', 'bob'] })).map((s) => [s.userId, s.streakLength]), [['ada', 1], ['bob', 1]]);
  await trophy.admin.streaks.freezes.create({ freezes: [{ userId: 'ada' }] });
  t.equal((await trophy.users.streak('ada')).freezes, 1);
  // Every SDK call that answers issues, about a user who does not exist: the
  // SDK requires userId, level and reason in each (the spec: severity, message).
  const noFreeze = await trophy.admin.streaks.freezes.create({ freezes: [{ userId: 'ghost' }] });
  t.match(noFreeze.issues, [{ userId: 'ghost', level: 'error', reason: 'User not found', severity: 'error', message: 'User not found' }]);
  t.equal(noFreeze.issues.length, 1);
  const noRestore = await trophy.admin.streaks.restore({ users: [{ id: 'ghost' }] });
  t.same(noRestore.restoredUsers, []);
  t.match(noRestore.issues, [{ userId: 'ghost', level: 'error', reason: 'User not found', severity: 'error', message: 'User not found' }]);
  t.equal(noRestore.issues.length, 1);
  const top = await trophy.streaks.rankings({ limit: 5, type: 'active' });
  t.same(top.map((r) => [r.userId, r.name, r.streakLength]), [['ada', 'Ada', 1], ['bob', 'Bob', 1]], 'equal streaks rank by user id');
  t.same((await trophy.streaks.rankings({ limit: 1, type: 'longest' })).map((r) => r.userId), ['ada']);

  // Leaderboards
  t.same((await trophy.leaderboards.all()).map((b) => b.key), ['all-time']);
  t.same((await trophy.leaderboards.get('all-time')).rankings.map((r) => [r.userId, r.rank, r.value]), [['bob', 1, 5], ['ada', 2, 3]]);
  t.equal((await trophy.users.leaderboard('ada', 'all-time')).rank, 2);

  // What is read from Postgres arrives once the server's flusher has written it.
  const range = { aggregation: 'daily' as const, startDate: today, endDate: today };
  const summary = await until('the metric summary', async () => {
    const r = await trophy.users.metricEventSummary('ada', 'lessons', range);
    return r.length ? r : null;
  });
  t.same(summary, [{ date: today, total: 3, change: 3 }]);
  t.same(await trophy.users.pointsEventSummary('ada', 'xp', range), [{ date: today, total: 30, change: 30 }]);
  const ranges = await until('the points summary', async () => {
    const r = await trophy.points.summary('xp');
    return r.reduce((n, x) => n + (x.from > 0 ? x.users : 0), 0) === 2 ? r : null;
  });
  t.equal(ranges.find((r) => r.from <= 30 && r.to >= 30)!.users, 1);
  const history = await until('rank history', async () => {
    const r = await trophy.users.leaderboard('bob', 'all-time');
    return r.history.length ? r.history : null;
  });
  t.same(history.map((h) => [h.previousRank, h.rank, h.value]), [[null, 1, 5]], "Bob's event took him to the top");
  t.ok(history[0]!.timestamp instanceof Date);

  const err = await trophy.metrics.event('missing', { user: { id: 'ada' }, value: 1 }).catch((e: unknown) => e);
  t.match(err, { statusCode: 404 }, 'an unknown metric is a 404 through the SDK');

  // Invalid input is 422, which the SDK raises as UnprocessableEntityError with the error body.
  const invalid = [
    () => trophy.users.points('ada', 'xp', { awards: 0 }),
    () => trophy.users.metricEventSummary('ada', 'lessons', { ...range, aggregation: 'hourly' as 'daily' }),
    () => trophy.streaks.rankings({ limit: 101 }),
    () => trophy.users.leaderboard('ada', 'all-time', { numEvents: 101 }),
    () => trophy.achievements.complete('profile', { user: { id: '' } }),
  ];
  for (const call of invalid) {
    const e = await call().then(() => null, (x: unknown) => x);
    t.ok(e instanceof TrophyApi.UnprocessableEntityError, `UnprocessableEntityError: ${(e as Error)?.message}`);
    t.match(e, { statusCode: 422, body: { error: String } });
  }

  server.proc.kill('SIGTERM');
  t.equal(await server.exit, 0);
});

t.test('@trophyso/node works against Laurel', async (t) => {
  const s = await startServer(t);
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });

  // This SDK release exposes only streaks under `admin`; configure over plain HTTP.
  const metricId = (await s.metrics(['words-written']))['words-written']!.id;
  await s.attributes([{ key: 'plan', type: 'user' }]);

  const ev = await trophy.metrics.event('words-written', {
    user: { id: 'sdk-user', email: 'sdk@example.com', tz: 'Europe/London', attributes: { plan: 'pro' } },
    value: 750,
    idempotencyKey: 'essay-1',
  });
  t.equal(ev.metricId, metricId);
  t.equal(ev.total, 750);
  t.equal(ev.idempotentReplayed, false);
  t.equal(ev.currentStreak.length, 0);
  const replay = await trophy.metrics.event('words-written', { user: { id: 'sdk-user' }, value: 750, idempotencyKey: 'essay-1' });
  t.equal(replay.idempotentReplayed, true);
  t.equal(replay.total, 750);

  const user = await trophy.users.get('sdk-user');
  t.equal(user.email, 'sdk@example.com');
  t.equal(user.tz, 'Europe/London');
  t.same(user.attributes, { plan: 'pro' });
  const identified = await trophy.users.identify('sdk-2', { name: 'Second' });
  t.equal(identified.name, 'Second');
  const made = await trophy.users.create({ id: 'sdk-3' });
  t.equal(made.id, 'sdk-3');

  const all = await trophy.users.allMetrics('sdk-user');
  t.equal(all[0]!.current, 750);
  const one = await trophy.users.singleMetric('sdk-user', 'words-written');
  t.equal(one.current, 750);

  await s.app.flusher.drain();
  const summary = await trophy.users.metricEventSummary('sdk-user', 'words-written', {
    aggregation: 'daily', startDate: '2026-03-10', endDate: '2026-03-10',
  });
  t.same(summary, [{ date: '2026-03-10', total: 750, change: 750 }]);

  // An application key works through the SDK for its own user.
  const keys = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'sdk-user' }] });
  const own = new TrophyApiClient({ apiKey: keys.body.created[0].key, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  t.equal((await own.users.get('sdk-user')).id, 'sdk-user');
  await t.rejects(own.users.get('sdk-2'), 'another user is refused');

  await t.rejects(trophy.metrics.event('missing', { user: { id: 'sdk-user' }, value: 1 }), 'unknown metric surfaces as an SDK error');
});

t.test('@trophyso/node parses points responses', async (t) => {
  const s = await startServer(t);
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  const { lessons } = await s.metrics(['lessons']);
  const sys = await s.call('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp', maxPoints: 1000,
      levels: [{ name: 'Rookie', key: 'rookie', points: 10 }],
      boosts: [{ name: 'Launch', start: '2026-01-01', multiplier: 2 }],
      triggers: [
        { type: 'metric', metricId: lessons!.id, metricThreshold: 1, points: 5, status: 'active' },
        { type: 'time', timeUnit: 'hours', timeInterval: 12, points: 1, status: 'active' },
      ],
    }],
  });
  t.equal(sys.status, 201);

  const ev = await trophy.metrics.event('lessons', { user: { id: 'p1' }, value: 1 });
  t.equal(ev.points.xp!.total, 10);
  t.equal(ev.points.xp!.added, 10);
  t.equal((ev.points.xp as unknown as { level?: { key: string } }).level?.key, 'rookie', 'level passes through (this SDK release does not type it)');
  t.equal(ev.points.xp!.awards[0]!.trigger?.type, 'metric');

  await s.app.flusher.drain();
  const mine = await trophy.users.points('p1', 'xp', { awards: 5 });
  t.equal(mine.total, 10);
  t.equal(mine.awards.length, 1);
  const summary = await trophy.users.pointsEventSummary('p1', 'xp', { aggregation: 'weekly', startDate: '2026-03-09', endDate: '2026-03-15' });
  t.same(summary, [{ date: '2026-03-09', total: 10, change: 10 }]);
  const system = await trophy.points.system('xp');
  t.equal(system.triggers.length, 2);
  const ranges = await trophy.points.summary('xp');
  t.equal(ranges.reduce((n, r) => n + r.users, 0), 1);
});

t.test('@trophyso/node parses achievement responses', async (t) => {
  const s = await startServer(t);
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  const { words } = await s.metrics(['words']);
  const created = await s.call('POST', '/admin/v1/achievements', {
    body: [
      { key: 'novice', name: 'Novice', trigger: 'metric', metricId: words!.id, metricValue: 10, status: 'active' },
      { key: 'profile', name: 'Profile done', trigger: 'api', status: 'active' },
    ],
  });
  t.equal(created.status, 201);
  const ev = await trophy.metrics.event('words', { user: { id: 'a1' }, value: 12 });
  t.equal(ev.achievements[0]!.name, 'Novice');
  t.ok(ev.achievements[0]!.achievedAt instanceof Date);
  const done = await trophy.achievements.complete('profile', { user: { id: 'a1' } });
  t.equal(done.achievement.key, 'profile');
  const all = await trophy.achievements.all();
  t.same(all.map((a) => [a.name, a.completions, a.rarity]), [['Novice', 1, 100], ['Profile done', 1, 100]]);
  const mine = await trophy.users.achievements('a1', { includeIncomplete: 'true' });
  t.equal(mine.length, 2);
  const metrics = await trophy.users.singleMetric('a1', 'words');
  t.equal(metrics.achievements.length, 1);
});

t.test('@trophyso/node parses streak responses and drives streak admin', async (t) => {
  const s = await startServer(t);
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  const { runs } = await s.metrics(['runs']);
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: runs!.id, threshold: 1 }], maxFreezes: 3 } });
  s.clock.set('2026-03-01T12:00:00Z');
  const ev = await trophy.metrics.event('runs', { user: { id: 'st1', tz: 'Europe/Paris' }, value: 1 });
  t.equal(ev.currentStreak.length, 1);
  t.equal(ev.currentStreak.extended, true);
  await s.app.flusher.drain();
  const streak = await trophy.users.streak('st1', { historyPeriods: 2 });
  t.equal(streak.length, 1);
  t.equal(streak.streakHistory!.length, 2);
  const list = await trophy.streaks.list({ userIds: ['st1'] });
  t.equal(list[0]!.streakLength, 1);
  await trophy.admin.streaks.freezes.create({ freezes: [{ userId: 'st1' }] });
  t.equal((await trophy.users.streak('st1')).freezes, 1);
  s.clock.set('2026-03-05T12:00:00Z');
  const restored = await trophy.admin.streaks.restore({ users: [{ id: 'st1' }] });
  t.same(restored.restoredUsers, ['st1'], 'lost on the 3rd (one freeze spent on the 2nd), restored through the SDK');
});

t.test('@trophyso/node parses leaderboard responses', async (t) => {
  const s = await startServer(t);
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  const { steps } = await s.metrics(['steps']);
  const made = await s.call('POST', '/admin/v1/leaderboards', {
    body: [{ key: 'weekly-steps', name: 'Weekly steps', rankBy: 'metric', metricId: steps!.id, start: '2026-03-09', runUnit: 'day', runInterval: 7, status: 'active' }],
  });
  t.equal(made.status, 201);
  const ev = await trophy.metrics.event('steps', { user: { id: 'l1', name: 'Lee' }, value: 500 });
  t.equal(ev.leaderboards['weekly-steps']!.rank, 1);
  const all = await trophy.leaderboards.all();
  t.equal(all[0]!.key, 'weekly-steps');
  const one = await trophy.leaderboards.get('weekly-steps', { limit: 5 });
  t.equal(one.rankings[0]!.userName, 'Lee');
  await s.app.flusher.drain();
  const mine = await trophy.users.leaderboard('l1', 'weekly-steps');
  t.equal(mine.rank, 1);
  t.equal(mine.history.length, 1);
});

t.test('@trophyso/node reads and updates preferences and reads Wrapped', async (t) => {
  const s = await startServer(t);
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  const { words } = await s.metrics(['words']);
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: words!.id, threshold: 1 }] } });
  await trophy.metrics.event('words', { user: { id: 'w1', tz: 'UTC' }, value: 40 });
  t.same((await trophy.users.getPreferences('w1')).notifications.achievementCompleted, ['email'], "the tenant's default");
  // This SDK release knows notification preferences only (no `streak`).
  const updated = await trophy.users.updatePreferences('w1', { notifications: { recap: [], streakReminder: ['push'] } });
  t.same(updated.notifications.recap, []);
  t.same(updated.notifications.streakReminder, ['push']);
  const wrapped = await trophy.users.wrapped('w1', { year: 2026 });
  t.equal(wrapped.user.id, 'w1');
  t.equal(wrapped.activity.daysActive, 1);
  t.equal(wrapped.activity.entireYear.metrics.words!.changeThisPeriod, 40);
  t.equal(wrapped.activity.entireYear.longestStreak.length, 1);
});
