import t from 'tap';
import { DateTime } from 'luxon';
import { startServer, TestServer } from './helpers/harness';
import { conform, trophySchema, trophySpecAvailable } from './helpers/trophy-schema';

const at = (s: TestServer, local: string) => s.clock.set(DateTime.fromISO(local, { zone: 'UTC' }).toMillis());

async function words(s: TestServer, user: string, local: string, value: number, device?: string) {
  at(s, local);
  const r = await s.event('words', { user: { id: user, tz: 'UTC' }, value, ...(device ? { attributes: { device } } : {}) });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
}

t.test('Wrapped: a seeded year of events, computed by hand', async (t) => {
  const s = await startServer(t);
  const m = await s.metrics(['words']);
  await s.attributes([{ key: 'device', type: 'event' }]);
  const setup = [
    s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.words!.id, threshold: 1 }] } }),
    s.call('POST', '/admin/v1/points', { body: [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: m.words!.id, metricThreshold: 10, points: 5, status: 'active' }] }] }),
    s.call('POST', '/admin/v1/achievements', { body: [{ key: 'hundred', name: 'Hundred', trigger: 'metric', metricId: m.words!.id, metricValue: 100, status: 'active' }] }),
    s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: m.words!.id, start: '2024-01-01', status: 'active' }] }),
  ];
  for (const r of await Promise.all(setup)) t.ok(r.status < 300, JSON.stringify(r.body));

  await words(s, 'ada', '2024-12-31T10:00', 50, 'web'); // before the year: 50 words, 25 XP
  await words(s, 'bob', '2025-01-05T10:00', 200); // 100 XP; first on the board from now on
  await words(s, 'ada', '2025-01-06T10:00', 10, 'web'); // 60: +5 XP
  await words(s, 'ada', '2025-01-07T10:00', 20, 'ios'); // 80: +10 XP
  await words(s, 'ada', '2025-01-07T11:00', 5, 'web'); // 85
  await words(s, 'ada', '2025-01-08T10:00', 30, 'web'); // 115: +15 XP, "hundred"; streak of 3
  for (let i = 0; i < 3; i++) await words(s, 'ada', `2025-03-03T1${i}:00`, 1, 'web'); // the busiest day: 3 events
  await words(s, 'cy', '2025-03-03T18:00', 1);
  await words(s, 'ada', '2025-03-04T10:00', 1, 'web');
  await words(s, 'ada', '2025-03-04T11:00', 1, 'web'); // 120: +5 XP
  at(s, '2026-01-15T12:00');
  await s.drain();
  await s.app.scheduler.runOnce(); // percentiles

  const r = await s.call('GET', '/v1/users/ada/wrapped?year=2025');
  t.equal(r.status, 200);
  if (trophySpecAvailable) t.same(conform(r.body, trophySchema('WrappedResponse')), [], "conforms to Trophy's WrappedResponse");
  const a = r.body.activity;
  t.same([a.daysActive, a.weeksActive, a.monthsActive], [5, 2, 2]);

  const w = (total: number, change: number, pct: number, extra = {}) => ({ name: 'Metric words', units: null, currentTotal: total, changeThisPeriod: change, percentChange: pct, ...extra });
  t.equal(a.mostActiveDay.date, '2025-03-03');
  t.same(a.mostActiveDay.metrics, { words: { ...w(118, 3, 2.6), byAttribute: { device: { web: w(98, 3, 3.2) } } } }, 'day: 3 of 115 is 2.6%; no percentile for days');
  t.same(a.mostActiveDay.points, {}, 'no points that day');
  t.same(a.mostActiveDay.leaderboards.top.rank, 2);
  t.same(a.mostActiveDay.leaderboards.top.value, 118);

  t.same([a.mostActiveWeek.start, a.mostActiveWeek.end], ['2025-03-03', '2025-03-09']);
  t.same(a.mostActiveWeek.metrics.words, { ...w(120, 5, 4.3, { percentileThisPeriod: 100 }), byAttribute: { device: { web: w(100, 5, 5.3) } } }, 'week: top of the two active users');
  t.same(a.mostActiveWeek.points, { xp: { name: 'XP', description: '', currentTotal: 60, changeThisPeriod: 5, percentChange: 9.1, percentileThisPeriod: 100 } });
  t.equal(a.mostActiveMonth.month, 2, 'March');
  t.same(a.mostActiveMonth.metrics.words.changeThisPeriod, 5);

  const y = a.entireYear;
  t.same(y.metrics.words, {
    ...w(120, 70, 140, { percentileThisPeriod: 66 }),
    byAttribute: { device: { web: w(100, 50, 100), ios: w(20, 20, 0) } },
  }, 'year: 70 over 50; second of three users');
  t.same(y.points.xp, { name: 'XP', description: '', currentTotal: 60, changeThisPeriod: 35, percentChange: 140, percentileThisPeriod: 50 });
  t.same(y.achievements.map((x: any) => [x.key, x.achievedAt]), [['hundred', '2025-01-08T10:00:00.000Z']]);
  t.match(y.leaderboards.top, { key: 'top', rank: 2, value: 120 });
  t.same(y.longestStreak, { length: 3, frequency: 'daily', periodStart: '2025-01-06', periodEnd: '2025-01-08', started: '2025-01-06' });

  t.equal((await s.call('GET', '/v1/users/ada/wrapped?year=2027')).status, 422, 'a future year');
  t.equal((await s.call('GET', '/v1/users/nobody/wrapped')).status, 404);
  const now = await s.call('GET', '/v1/users/ada/wrapped');
  t.same([now.body.activity.daysActive, now.body.activity.entireYear.longestStreak.length], [0, 0], 'the current year by default: nothing yet');
});

t.test('Wrapped reads its own writes: an event just answered is counted', async (t) => {
  const s = await startServer(t);
  await s.metrics(['words']);
  await words(s, 'u', '2026-02-01T10:00', 7);
  const r = await s.call('GET', '/v1/users/u/wrapped?year=2026');
  t.equal(r.body.activity.entireYear.metrics.words.changeThisPeriod, 7);
});
