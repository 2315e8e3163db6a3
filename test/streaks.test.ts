import t from 'tap';
import { DateTime } from 'luxon';
import { startServer, TestServer } from './helpers/harness';

/** Set the server clock to a local wall time in a zone. */
const at = (s: TestServer, local: string, zone: string) => s.clock.set(DateTime.fromISO(local, { zone }).toMillis());

/** A server with one metric `m` (threshold 1) and streak settings. */
async function setup(t: { teardown(fn: () => unknown): void }, settings: Record<string, unknown> = {}) {
  const s = await startServer(t);
  const m = await s.metrics(['m']);
  const r = await s.call('PUT', '/admin/v1/streak', {
    body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.m!.id, threshold: 1 }], ...settings },
  });
  if (r.status !== 200) throw new Error(`streak setup failed: ${JSON.stringify(r.body)}`);
  return { s, m };
}

/** Send an event and return its currentStreak. */
async function ev(s: TestServer, user: string, value = 1, metric = 'm', tz?: string) {
  const r = await s.event(metric, { user: { id: user, ...(tz ? { tz } : {}) }, value });
  if (r.status !== 201) throw new Error(`event failed: ${JSON.stringify(r.body)}`);
  return r.body.currentStreak;
}

t.test('daily streaks at local midnight, far east and far west', async (t) => {
  for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
    t.test(zone, async (t) => {
      const { s } = await setup(t);
      at(s, '2026-06-01T23:59', zone);
      t.match(await ev(s, 'u', 1, 'm', zone), { length: 1, extended: true, started: '2026-06-01', periodStart: '2026-06-01', periodEnd: '2026-06-01', expires: '2026-06-02' });
      at(s, '2026-06-02T00:01', zone);
      t.match(await ev(s, 'u', 1, 'm'), { length: 2, extended: true, started: '2026-06-01', periodStart: '2026-06-02', expires: '2026-06-03' });
      at(s, '2026-06-02T23:00', zone);
      t.match(await ev(s, 'u', 1, 'm'), { length: 2, extended: false }, 'once per period');
      // A whole local day with nothing: lost at its end.
      at(s, '2026-06-04T00:01', zone);
      t.match(await ev(s, 'u', 1, 'm'), { length: 1, extended: true, started: '2026-06-04' });
    });
  }
});

t.test('Europe/London across both daylight-saving changes', async (t) => {
  const { s } = await setup(t);
  const zone = 'Europe/London';
  const days = ['2026-03-28', '2026-03-29', '2026-03-30', '2026-10-24', '2026-10-25', '2026-10-26'];
  let len = 0;
  for (const [i, d] of days.entries()) {
    if (i === 3) len = 0; // the months between break it
    at(s, `${d}T00:30`, zone);
    const cs = await ev(s, 'dst', 1, 'm', zone);
    len++;
    t.match(cs, { length: len, periodStart: d, periodEnd: d }, `${d}: 23- and 25-hour days are ordinary days`);
    at(s, `${d}T23:30`, zone);
    t.match(await ev(s, 'dst', 1, 'm'), { length: len, extended: false, periodStart: d });
  }
});

t.test('thresholds, modes and several metrics', async (t) => {
  const s = await startServer(t);
  const m = await s.metrics(['read', 'write']);
  await s.call('PUT', '/admin/v1/streak', {
    body: { enabled: true, frequency: 'daily', mode: 'all', metrics: [{ metricId: m.read!.id, threshold: 10 }, { metricId: m.write!.id, threshold: 2 }] },
  });
  t.match(await ev(s, 'all', 6, 'read'), { length: 0, extended: false });
  t.match(await ev(s, 'all', 6, 'read'), { length: 0, extended: false }, 'reading enough is not all');
  t.match(await ev(s, 'all', 2, 'write'), { length: 1, extended: true }, 'both conditions met within the day');
  await s.call('PUT', '/admin/v1/streak', {
    body: { enabled: true, frequency: 'daily', mode: 'any', metrics: [{ metricId: m.read!.id, threshold: 10 }, { metricId: m.write!.id, threshold: 2 }] },
  });
  t.match(await ev(s, 'any', 2, 'write'), { length: 1, extended: true }, 'any one suffices');
  t.equal((await s.call('GET', '/admin/v1/streak')).body.mode, 'any');
});

t.test('weekly (Monday and Sunday starts) and monthly', async (t) => {
  const { s } = await setup(t, { frequency: 'weekly' });
  s.clock.set('2026-03-02T12:00:00Z'); // a Monday
  t.match(await ev(s, 'wk'), { length: 1, frequency: 'weekly', periodStart: '2026-03-02', periodEnd: '2026-03-08', expires: '2026-03-15' });
  s.clock.set('2026-03-15T12:00:00Z'); // the Sunday of the next week
  t.match(await ev(s, 'wk'), { length: 2, periodStart: '2026-03-09', periodEnd: '2026-03-15' });

  const m = (await s.call('GET', '/admin/v1/metrics')).body[0];
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'weekly', weekStart: 'sunday', metrics: [{ metricId: m.id, threshold: 1 }] } });
  s.clock.set('2026-03-15T12:00:00Z');
  t.match(await ev(s, 'sun'), { periodStart: '2026-03-15', periodEnd: '2026-03-21' }, 'a Sunday starts the week');

  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'monthly', metrics: [{ metricId: m.id, threshold: 1 }] } });
  s.clock.set('2026-01-31T12:00:00Z');
  // In UTC: the last event is at 00:30 UTC on the 1st (still February in the tenant's default zone).
  t.match(await ev(s, 'mon', 1, 'm', 'UTC'), { length: 1, frequency: 'monthly', periodStart: '2026-01-01', periodEnd: '2026-01-31', expires: '2026-02-28' });
  s.clock.set('2026-02-28T12:00:00Z');
  t.match(await ev(s, 'mon'), { length: 2, periodStart: '2026-02-01', periodEnd: '2026-02-28' });
  s.clock.set('2026-03-01T00:30:00Z');
  t.match(await ev(s, 'mon'), { length: 3, periodStart: '2026-03-01', periodEnd: '2026-03-31' });
});

t.test('switching frequency keeps every streak', async (t) => {
  const { s } = await setup(t, { frequency: 'daily' });
  const m = (await s.call('GET', '/admin/v1/metrics')).body[0];
  for (const d of ['2026-03-02', '2026-03-03', '2026-03-09', '2026-03-10']) {
    s.clock.set(`${d}T12:00:00Z`);
    await ev(s, 'sw');
  }
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'weekly', metrics: [{ metricId: m.id, threshold: 1 }] } });
  t.match((await s.call('GET', '/v1/users/sw/streak')).body, { length: 2, frequency: 'weekly' }, 'two weeks running, counted all along');
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.id, threshold: 1 }] } });
  t.match((await s.call('GET', '/v1/users/sw/streak')).body, { length: 2, frequency: 'daily' });
});

t.test('zone changes keep the streak', async (t) => {
  const { s } = await setup(t);
  at(s, '2026-05-01T20:00', 'America/Los_Angeles');
  t.match(await ev(s, 'trav', 1, 'm', 'America/Los_Angeles'), { length: 1, periodStart: '2026-05-01' });
  // Eastward: Tokyo is already May 2nd.
  at(s, '2026-05-02T18:00', 'Asia/Tokyo');
  t.match(await ev(s, 'trav', 1, 'm', 'Asia/Tokyo'), { length: 2, periodStart: '2026-05-02' });
  // Westward, back to a day Tokyo already counted: nothing is lost or counted twice.
  at(s, '2026-05-02T08:00', 'America/Los_Angeles');
  t.match(await ev(s, 'trav', 1, 'm', 'America/Los_Angeles'), { length: 2, extended: false });
  at(s, '2026-05-03T08:00', 'America/Los_Angeles');
  t.match(await ev(s, 'trav', 1, 'm'), { length: 3, extended: true });
});

t.test('freezes: initial, consumed, earned up to the maximum, granted', async (t) => {
  const { s } = await setup(t, { initialFreezes: 1, maxFreezes: 2, freezeAutoEarnInterval: 3, freezeAutoEarnAmount: 1 });
  s.clock.set('2026-03-01T12:00:00Z');
  t.match(await ev(s, 'fz'), { length: 1, freezes: 1, maxFreezes: 2, freezeAutoEarnInterval: 3, freezeAutoEarnAmount: 1 });
  s.clock.set('2026-03-03T12:00:00Z'); // missed the 2nd: the freeze holds it
  t.match(await ev(s, 'fz'), { length: 2, freezes: 0, extended: true });
  s.clock.set('2026-03-04T12:00:00Z'); // day 3 since start: one earned
  t.match(await ev(s, 'fz'), { length: 3, freezes: 1 });
  s.clock.set('2026-03-20T12:00:00Z'); // a long gap: earned freezes (at most 2) cannot cover 15 days
  t.match(await ev(s, 'fz'), { length: 1, started: '2026-03-20' });
  const cur = (await s.call('GET', '/v1/users/fz/streak')).body;
  t.equal(cur.freezes, 2, 'accrued to the maximum, never beyond');
  const full = await s.call('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: 'fz' }, { userId: 'ghost' }] } });
  t.equal(full.status, 200);
  t.same(full.body.issues.map((i: { index: number }) => i.index), [0, 1]);
  s.clock.set('2026-03-22T12:00:00Z');
  t.match(await ev(s, 'fz'), { length: 2, freezes: 2 }, 'one spent on the 21st, one earned on the 22nd (day 21)');
  s.clock.set('2026-03-01T12:00:00Z');
  await ev(s, 'g');
  const granted = await s.call('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: 'g' }] } });
  t.equal(granted.status, 201);
  t.same(granted.body.issues, []);
  t.equal((await s.call('GET', '/v1/users/g/streak')).body.freezes, 2);
  s.clock.set('2026-03-22T12:00:00Z');

  await s.app.flusher.drain();
  const hist = (await s.call('GET', '/v1/users/fz/streak?historyPeriods=3')).body.streakHistory;
  t.same(hist, [
    { periodStart: '2026-03-20', periodEnd: '2026-03-20', length: 1, usedPause: false, usedFreeze: false },
    { periodStart: '2026-03-21', periodEnd: '2026-03-21', length: 1, usedPause: false, usedFreeze: true },
    { periodStart: '2026-03-22', periodEnd: '2026-03-22', length: 2, usedPause: false, usedFreeze: false },
  ]);
});

t.test('pauses hold the length; restore brings back what was lost', async (t) => {
  const { s } = await setup(t);
  s.clock.set('2026-03-01T12:00:00Z');
  await ev(s, 'p');
  s.clock.set('2026-03-02T12:00:00Z');
  await ev(s, 'p');
  const past = await s.call('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'p', start: '2026-03-01', end: '2026-03-05' }] } });
  t.equal(past.status, 422, 'a start before today is refused');
  const made = await s.call('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'p', start: '2026-03-03', end: '2026-03-05' }] } });
  t.equal(made.status, 201);
  t.match(made.body.created[0], { userId: 'p', start: '2026-03-03', end: '2026-03-05' });
  t.same((await s.call('GET', '/v1/users/p/streak')).body.pauses, [{ id: made.body.created[0].id, start: '2026-03-03', end: '2026-03-05' }]);
  s.clock.set('2026-03-06T12:00:00Z');
  t.match(await ev(s, 'p'), { length: 3, started: '2026-03-01' }, 'held through the pause, then extended');
  await s.app.flusher.drain();
  const hist = (await s.call('GET', '/v1/users/p/streak?historyPeriods=4')).body.streakHistory;
  t.same(hist.map((h: { length: number; usedPause: boolean }) => [h.length, h.usedPause]), [[2, true], [2, true], [2, true], [3, false]]);

  // A pause deleted before it starts does nothing.
  const later = await s.call('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'p', start: '2026-03-08', end: '2026-03-09' }] } });
  const del = await s.call('DELETE', `/admin/v1/streaks/pauses?ids=${later.body.created[0].id}`);
  t.same(del.body.deleted, [{ id: later.body.created[0].id }]);
  s.clock.set('2026-03-10T12:00:00Z');
  t.match(await ev(s, 'p'), { length: 1 }, 'lost without the pause');

  // Lost (3) on the 7th, started again (1) today: a restore joins the two runs.
  const restored = await s.call('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'p' }, { id: 'ghost' }] } });
  t.same(restored.body.restoredUsers, ['p']);
  t.equal(restored.body.issues.length, 1);
  t.equal(restored.body.issues[0].userId, 'ghost');
  t.match((await s.call('GET', '/v1/users/p/streak')).body, { length: 4, started: '2026-03-01' });
  const again = await s.call('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'p' }] } });
  t.equal(again.body.restoredUsers.length, 0, 'nothing left to restore');
});

t.test('restore after a loss, bulk reads and consequences', async (t) => {
  const { s } = await setup(t);
  const ach = await s.call('POST', '/admin/v1/achievements', {
    body: [{ key: 'three', name: 'Three in a row', trigger: 'streak', streakLength: 3, status: 'active' }],
  });
  t.match(ach.body.created[0], { key: 'three', trigger: 'streak', streakLength: 3 });
  await s.call('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'streak', streakLength: 2, points: 20, status: 'active' }] }],
  });
  for (const d of ['2026-03-01', '2026-03-02', '2026-03-03']) {
    s.clock.set(`${d}T12:00:00Z`);
    const r = await s.event('m', { user: { id: 'r' }, value: 1 });
    if (d === '2026-03-02') t.match(r.body.points.xp, { added: 20 }, 'streak trigger at length 2');
    if (d === '2026-03-03') {
      t.same(r.body.achievements.map((a: { key: string }) => a.key), ['three'], 'streak achievement at length 3');
      t.same(r.body.points, {}, '3 is not a multiple of 2');
    }
  }
  s.clock.set('2026-03-07T12:00:00Z');
  t.match((await s.call('GET', '/v1/users/r/streak')).body, { length: 0, started: null, expires: null });
  const restored = await s.call('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'r' }] } });
  t.same(restored.body.restoredUsers, ['r']);
  t.match((await s.call('GET', '/v1/users/r/streak')).body, { length: 3, expires: '2026-03-07' });
  t.match(await ev(s, 'r'), { length: 4, extended: true });

  s.clock.set('2026-03-08T12:00:00Z');
  await ev(s, 'other');
  const bulk = await s.call('GET', '/v1/streaks?userIds=r,other,nobody');
  t.same(bulk.body.map((x: { userId: string; streakLength: number }) => [x.userId, x.streakLength]), [['r', 4], ['other', 1], ['nobody', 0]]);
  t.match(bulk.body[1].extended, /^2026-03-08T12:00:00/);
  t.equal((await s.call('GET', '/v1/streaks')).status, 422);
});

t.test('an idempotent replay reports the stored streak and changes nothing', async (t) => {
  const { s } = await setup(t);
  const first = await s.event('m', { user: { id: 'rp' }, value: 1 }, { headers: { 'Idempotency-Key': 'once' } });
  t.match(first.body.currentStreak, { length: 1, extended: true });
  s.clock.advance(86_400_000);
  const replay = await s.event('m', { user: { id: 'rp' }, value: 1 }, { headers: { 'Idempotency-Key': 'once' } });
  t.equal(replay.status, 202);
  t.match(replay.body, { currentStreak: { length: 1, extended: false }, points: {}, achievements: [], leaderboards: {} });
});

t.test('streak rankings: current streaks (a lapsed one does not count) and longest ever', async (t) => {
  const { s } = await setup(t);
  const day = (d: number) => s.clock.set(`2026-03-${String(d).padStart(2, '0')}T12:00:00Z`);
  for (const d of [1, 2, 3]) {
    day(d);
    await ev(s, 'ann');
  }
  for (const d of [4, 5, 6]) {
    day(d);
    await ev(s, 'bob');
  }
  await s.call('PUT', '/v1/users/bob', { body: { name: 'Bob' } });
  await ev(s, 'cat'); // the 6th
  const rank = async (q: string) => (await s.call('GET', `/v1/streaks/rankings${q}`)).body;
  t.same(await rank(''), [{ userId: 'bob', name: 'Bob', streakLength: 3 }, { userId: 'cat', streakLength: 1 }],
    "Ann's streak ended on the 4th though she has not been seen since; no name: none sent");
  t.same(await rank('?type=longest'), [{ userId: 'ann', streakLength: 3 }, { userId: 'bob', name: 'Bob', streakLength: 3 }, { userId: 'cat', streakLength: 1 }]);
  t.same((await rank('?limit=1')).map((r: { userId: string }) => r.userId), ['bob']);
  t.equal((await s.call('GET', '/v1/streaks/rankings?type=best')).status, 422);
  t.equal((await s.call('GET', '/v1/streaks/rankings?limit=101')).status, 422);
});
