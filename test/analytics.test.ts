import t from 'tap';
import typia from 'typia';
import { startServer } from './helpers/harness';
import { Laurel } from '../src/client';
import type * as W from '../src/client';

const DAY = 86_400_000;

/**
 * Three days of a small tenant (the harness clock starts 2026-03-10 12:00 UTC):
 *   03-10  u1 lessons +1, u2 lessons +1, u1 quizzes +1
 *   03-11  u1 lessons +1 (total 2: "two" completes), u3 quizzes +1
 *   03-12  u1 lessons +1
 * XP: +10 per lesson, -3 per quiz. Streak: daily, one lesson.
 */
async function seed(t: { teardown(fn: () => unknown): void }) {
  const s = await startServer(t);
  const m = await s.metrics(['lessons', 'quizzes']);
  const xp = (await s.call('POST', '/admin/v1/points', {
    body: [{
      key: 'xp', name: 'XP', triggers: [
        { type: 'metric', metricId: m.lessons!.id, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'metric', metricId: m.quizzes!.id, metricThreshold: 1, points: -3, status: 'active' },
      ],
    }],
  })).body.created[0];
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.lessons!.id, threshold: 1 }] } });
  const achievements = (await s.call('POST', '/admin/v1/achievements', {
    body: [
      { key: 'two', name: 'Two lessons', trigger: 'metric', metricId: m.lessons!.id, metricValue: 2, status: 'active' },
      { key: 'api', name: 'By hand', trigger: 'api', status: 'active' },
    ],
  })).body.created;
  const ev = async (metric: string, user: string, attributes?: Record<string, string>) => {
    const r = await s.event(metric, { user: { id: user }, value: 1, ...(attributes ? { attributes } : {}) });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  };
  await ev('lessons', 'u1');
  await ev('lessons', 'u2');
  await ev('quizzes', 'u1');
  s.clock.advance(DAY);
  await ev('lessons', 'u1');
  await ev('quizzes', 'u3');
  s.clock.advance(DAY);
  await ev('lessons', 'u1');
  await s.drain();
  const admin = new Laurel({ apiKey: s.adminKey, baseUrl: s.url }).admin;
  return { s, m, xp, achievements, admin };
}

const RANGE = { from: '2026-03-10', to: '2026-03-12' };

t.test('analytics answer exact figures from what the flusher stored', async (t) => {
  const { s, m, xp, achievements, admin } = await seed(t);
  const [lessons, quizzes] = [m.lessons!.id, m.quizzes!.id].map((id) => id.toLowerCase());

  const events = await admin.analytics.events(RANGE);
  t.ok(typia.is<W.EventsPerDay[]>(events), 'the documented shape');
  const sortedIds = [lessons, quizzes].sort();
  t.same(events, [
    ...sortedIds.map((id) => (id === lessons ? { date: '2026-03-10', metricId: lessons, events: 2, total: 2, activeUsers: 2 } : { date: '2026-03-10', metricId: quizzes, events: 1, total: 1, activeUsers: 1 })),
    ...sortedIds.map((id) => (id === lessons ? { date: '2026-03-11', metricId: lessons, events: 1, total: 1, activeUsers: 1 } : { date: '2026-03-11', metricId: quizzes, events: 1, total: 1, activeUsers: 1 })),
    { date: '2026-03-12', metricId: lessons, events: 1, total: 1, activeUsers: 1 },
  ], 'events per UTC day and metric, and the distinct users who sent them');
  t.same(await admin.analytics.events({ ...RANGE, metricId: quizzes }), [
    { date: '2026-03-10', metricId: quizzes, events: 1, total: 1, activeUsers: 1 },
    { date: '2026-03-11', metricId: quizzes, events: 1, total: 1, activeUsers: 1 },
  ], 'one metric');
  t.same(await admin.analytics.events({ from: '2026-03-11', to: '2026-03-11', metricId: lessons }), [
    { date: '2026-03-11', metricId: lessons, events: 1, total: 1, activeUsers: 1 },
  ], 'a range of one day holds that day only');

  const [lessonTrigger, quizTrigger] = (xp.triggers as { id: string }[]).map((tr) => tr.id);
  const byTrigger = (lesson: number, quiz: number) => [
    ...(lesson ? [{ triggerId: lessonTrigger!, issued: lesson, consumed: 0 }] : []),
    ...(quiz ? [{ triggerId: quizTrigger!, issued: 0, consumed: quiz }] : []),
  ].sort((a, b) => (a.triggerId < b.triggerId ? -1 : 1));
  t.same(await admin.analytics.points(RANGE), [
    { date: '2026-03-10', systemId: xp.id, issued: 20, consumed: 3, awards: 3, byTrigger: byTrigger(20, 3) },
    { date: '2026-03-11', systemId: xp.id, issued: 10, consumed: 3, awards: 2, byTrigger: byTrigger(10, 3) },
    { date: '2026-03-12', systemId: xp.id, issued: 10, consumed: 0, awards: 1, byTrigger: byTrigger(10, 0) },
  ], 'points issued (above zero) and consumed (below) per day, and by the trigger that paid them');

  t.same(await admin.analytics.activeUsers(RANGE), [
    { date: '2026-03-10', users: 2 },
    { date: '2026-03-11', users: 2 },
    { date: '2026-03-12', users: 1 },
  ], 'distinct users per day');

  t.same(await admin.analytics.streaks(RANGE), { frequency: 'daily', lengths: [{ length: 3, users: 1 }] },
    'alive on the last day: u1 at 3 days; u2 lost theirs on 03-11, u3 never did a lesson');
  t.same(await admin.analytics.streaks({ from: '2026-03-01', to: '2026-03-11' }), { frequency: 'daily', lengths: [{ length: 1, users: 1 }, { length: 2, users: 1 }] },
    "on 03-11: u1 at 2, u2's one day still alive (it could be extended that day)");
  t.same(await admin.analytics.streaks({ from: '2026-03-10', to: '2026-03-10' }), { frequency: 'daily', lengths: [{ length: 1, users: 2 }] },
    'on the first day');

  const [two, api] = achievements as { id: string }[];
  t.same(await admin.analytics.achievements(RANGE), [
    { achievementId: two!.id, key: 'two', name: 'Two lessons', completions: 1, completedBy: 1, users: 3, rate: 0.3333 },
    { achievementId: api!.id, key: 'api', name: 'By hand', completions: 0, completedBy: 0, users: 3, rate: 0 },
  ], 'completions in range, and the share of users who had completed it by its end');
  t.match(await admin.analytics.achievements({ from: '2026-03-12', to: '2026-03-12' }), [{ key: 'two', completions: 0, completedBy: 1 }],
    'completed before the range: counted in completedBy only');
  t.match(await admin.analytics.achievements({ from: '2026-03-01', to: '2026-03-10' }), [{ key: 'two', completions: 0, completedBy: 0, users: 2 }],
    'users who existed by the end of the range');

  t.same(await admin.analytics.events({ from: '2026-03-13', to: '2027-04-16' }), [], 'nothing after; a 400-day range is allowed');

  // 03-12 was still open (its figures came from the rows); two days on, every
  // day of the range is closed and read from its daily sums: the same figures.
  const before = await Promise.all([admin.analytics.events(RANGE), admin.analytics.points(RANGE), admin.analytics.activeUsers(RANGE)]);
  s.clock.advance(2 * DAY);
  await s.app.scheduler.runOnce();
  t.same(await Promise.all([admin.analytics.events(RANGE), admin.analytics.points(RANGE), admin.analytics.activeUsers(RANGE)]), before,
    'closed days read from their sums');
  t.same(await admin.analytics.events({ ...RANGE, metricId: quizzes }), before[0].filter((r) => r.metricId === quizzes), 'one metric, from the sums');

  // The other tenant sees none of it.
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] });
  t.same((await s.call('GET', '/admin/v1/analytics/events?from=2026-03-10&to=2026-03-12', { tenant: 'other' })).body, []);
});

t.test('analytics refuse bad ranges with 422, and anything but the admin key', async (t) => {
  const s = await startServer(t);
  const bad: [string, RegExp][] = [
    ['from=2026-03-10&to=2027-04-15', /at most 400 days/],
    ['from=2026-03-10&to=2026-03-09', /to must not be before from/],
    ['from=2026-02-30&to=2026-03-09', /query\.from/],
    ['to=2026-03-09', /query\.from is required/],
    ['from=2026-03-01&to=2026-03-09&metricId=nope', /query\.metricId/],
    ['from=2026-03-01&to=2026-03-09&color=red', /query\.color/],
  ];
  for (const [q, message] of bad) {
    const r = await s.call('GET', `/admin/v1/analytics/events?${q}`);
    t.equal(r.status, 422, q);
    t.match(r.body, { error: message }, q);
  }
  for (const name of ['points', 'active-users', 'streaks', 'achievements']) {
    t.equal((await s.call('GET', `/admin/v1/analytics/${name}?from=2026-03-10&to=2027-04-15`)).status, 422, `${name}: the same range limit`);
    t.equal((await s.call('GET', `/admin/v1/analytics/${name}?from=2026-03-10&to=2026-03-10`)).status, 200, name);
  }
  const appKey = (await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'u1' }] })).body.created[0].key;
  t.equal((await s.call('GET', '/admin/v1/analytics/events?from=2026-03-10&to=2026-03-10', { key: appKey })).status, 403);
  t.equal((await s.call('GET', '/admin/v1/analytics/events?from=2026-03-10&to=2026-03-10', { key: null })).status, 401);
});

t.test("a user's latest events, newest first", async (t) => {
  const s = await startServer(t);
  await s.metrics(['lessons']);
  await s.attributes([{ key: 'device', type: 'event' }]);
  for (const [value, device] of [[2, 'ios'], [5, 'web']] as const) {
    const r = await s.event('lessons', { user: { id: 'ada lovelace/1' }, value, attributes: { device } }, { headers: { 'Idempotency-Key': `k${value}` } });
    t.equal(r.status, 201);
    s.clock.advance(60_000);
  }
  await s.drain();
  const admin = new Laurel({ apiKey: s.adminKey, baseUrl: s.url }).admin;
  const events = await admin.userEvents('ada lovelace/1');
  t.ok(typia.is<W.AdminUserEvent[]>(events), 'the documented shape');
  t.match(events, [
    { value: 5, total: 7, localDate: '2026-03-10', occurredAt: '2026-03-10T12:01:00.000Z', attributes: { device: 'web' }, idempotencyKey: 'k5' },
    { value: 2, total: 2, occurredAt: '2026-03-10T12:00:00.000Z', attributes: { device: 'ios' }, idempotencyKey: 'k2' },
  ]);
  t.equal((await admin.userEvents('ada lovelace/1', { limit: 1 })).length, 1, 'limit');
  const { quizzes } = await s.metrics(['quizzes']);
  t.equal((await s.event('quizzes', { user: { id: 'ada lovelace/1' }, value: 1 })).status, 201);
  t.same((await admin.userEvents('ada lovelace/1', { metricId: quizzes!.id })).map((e) => e.value), [1], "one metric's events");
  t.equal((await admin.userEvents('ada lovelace/1')).length, 3, 'all metrics without metricId');
  t.equal((await s.call('GET', '/admin/v1/users/x/events?metricId=quizzes')).status, 422, 'metricId is an id');
  t.same(await admin.userEvents('nobody'), [], 'an unknown user has none');
  t.equal((await s.call('GET', '/admin/v1/users/x/events?limit=101')).status, 422, 'limit is 1 to 100, as every list (invalid input is 422)');
});

t.test('analytics and user events reflect every acknowledged event, flushed or not', async (t) => {
  // No background role: nothing flushes on its own, so only the read itself can bring the events to Postgres.
  const s = await startServer(t, {}, { http: true, background: false });
  await s.metrics(['lessons']);
  for (const id of ['u1', 'u2', 'u1']) {
    t.equal((await s.event('lessons', { user: { id }, value: 2 })).status, 201);
    s.clock.advance(1000);
  }
  const admin = new Laurel({ apiKey: s.adminKey, baseUrl: s.url }).admin;
  t.match(await admin.userEvents('u1'), [{ total: 4 }, { total: 2 }], "the user's events");
  t.match(await admin.analytics.events({ from: '2026-03-10', to: '2026-03-10' }), [{ date: '2026-03-10', events: 3, total: 6 }]);
  t.same(await admin.analytics.activeUsers({ from: '2026-03-10', to: '2026-03-10' }), [{ date: '2026-03-10', users: 2 }]);
  t.equal((await s.event('lessons', { user: { id: 'u3' }, value: 1 })).status, 201);
  t.same(await admin.analytics.activeUsers({ from: '2026-03-10', to: '2026-03-10' }), [{ date: '2026-03-10', users: 3 }], 'at once');
});
