import t from 'tap';
import { DateTime } from 'luxon';
import { startServer, TestServer } from './helpers/harness';

async function board(s: TestServer, body: Record<string, unknown>) {
  const r = await s.call('POST', '/admin/v1/leaderboards', { body: [body] });
  if (r.status !== 201 || r.body.issues.length) throw new Error(`board setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0];
}
const ranks = (r: { body: { rankings: { userId: string; rank: number; value: number }[] } }) => r.body.rankings.map((x) => `${x.rank}:${x.userId}:${x.value}`);

t.test('ranking, limits, ties and the event response', async (t) => {
  const s = await startServer(t);
  const { km } = await s.metrics(['km']);
  const b = await board(s, { key: 'top', name: 'Top', rankBy: 'metric', metricId: km!.id, maxParticipants: 3, start: '2026-03-01', status: 'active' });
  t.equal(b.status, 'active');

  const first = await s.event('km', { user: { id: 'ann', name: 'Ann' }, value: 10 });
  t.match(first.body.leaderboards.top, { key: 'top', name: 'Top', rankBy: 'metric', metricKey: 'km', rank: 1, previousRank: null, threshold: 0, start: '2026-03-01', end: null, maxParticipants: 3 });
  await s.event('km', { user: { id: 'bob' }, value: 20 });
  await s.event('km', { user: { id: 'cat' }, value: 10 }); // ties with Ann, who got there first
  const list = await s.call('GET', '/v1/leaderboards/top');
  t.same(ranks(list), ['1:bob:20', '2:ann:10', '3:cat:10']);
  t.equal(list.body.rankings[1].userName, 'Ann');
  t.equal(list.body.status, 'active');

  // Full: a newcomer must beat the lowest, who then leaves.
  const low = await s.event('km', { user: { id: 'dan' }, value: 10 });
  t.match(low.body.leaderboards.top, { rank: null, previousRank: null, threshold: 10 }, 'equal to the lowest is not enough');
  const high = await s.event('km', { user: { id: 'eve' }, value: 15 });
  t.match(high.body.leaderboards.top, { rank: 2, previousRank: null });
  t.same(ranks(await s.call('GET', '/v1/leaderboards/top')), ['1:bob:20', '2:eve:15', '3:ann:10']);
  const climb = await s.event('km', { user: { id: 'ann' }, value: 15 });
  t.match(climb.body.leaderboards.top, { rank: 1, previousRank: 3 });

  t.same(ranks(await s.call('GET', '/v1/leaderboards/top?offset=1&limit=1')), ['2:bob:20']);
  t.same(ranks(await s.call('GET', '/v1/leaderboards/top?userId=eve')), ['3:eve:15'], 'the page starts at the user');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/top?userId=bob&limit=2')), ['2:bob:20', '3:eve:15']);
  t.same(ranks(await s.call('GET', '/v1/leaderboards/top?userId=ann&offset=1&limit=1')), ['2:bob:20'], 'offset counts from the user');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/top?userId=dan')), [], 'a user off the board is not listed');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/top?offset=5')), [], 'a page past the end is empty');
  const mine = await s.call('GET', '/v1/users/ann/leaderboards/top');
  t.match(mine.body, { key: 'top', rank: 1, value: 25 });
  await s.app.flusher.drain();
  const hist = await s.call('GET', '/v1/users/ann/leaderboards/top?numEvents=5');
  t.same(hist.body.history.map((h: { previousRank: number | null; rank: number }) => [h.previousRank, h.rank]), [[3, 1], [null, 1]]);
  t.equal((await s.call('GET', '/v1/leaderboards')).body.length, 1);
});

t.test('states: inactive, scheduled, active, finished', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  // The clock starts at 2026-03-10 12:00 UTC.
  const idle = await board(s, { key: 'idle', name: 'Idle', rankBy: 'metric', metricId: m!.id });
  t.equal(idle.status, 'inactive');
  t.same((await s.event('m', { user: { id: 'u' }, value: 1 })).body.leaderboards, {}, 'nobody joins an inactive board');
  t.equal((await s.call('GET', '/v1/leaderboards/idle')).status, 404);

  const later = await board(s, { key: 'later', name: 'Later', rankBy: 'metric', metricId: m!.id, start: '2026-03-12', end: '2026-03-13', status: 'active' });
  t.equal(later.status, 'scheduled', 'a future start cannot be active');
  const patched = await s.call('PATCH', '/admin/v1/leaderboards', { body: [{ id: later.id, rankBy: 'streak' }] });
  t.match(patched.body.issues[0].message, /inactive/);

  s.clock.set('2026-03-11T09:59:00Z'); // 2026-03-11 23:59 in UTC+14
  await s.app.scheduler.runOnce();
  t.equal((await s.call('GET', `/admin/v1/leaderboards/${later.id}`)).body.status, 'scheduled');
  s.clock.set('2026-03-11T10:00:00Z'); // midnight on the 12th in UTC+14
  await s.app.scheduler.runOnce();
  t.equal((await s.call('GET', `/admin/v1/leaderboards/${later.id}`)).body.status, 'active');

  const kiri = 'Pacific/Kiritimati';
  const pago = 'Pacific/Pago_Pago';
  s.clock.set(DateTime.fromISO('2026-03-12T08:00', { zone: kiri }).toMillis());
  t.match((await s.event('m', { user: { id: 'k', tz: kiri }, value: 5 })).body.leaderboards.later, { rank: 1 });
  // Last day, local evening in Pago Pago: already the 15th in Kiritimati.
  s.clock.set(DateTime.fromISO('2026-03-13T22:00', { zone: pago }).toMillis());
  t.match((await s.event('m', { user: { id: 'p', tz: pago }, value: 9 })).body.leaderboards.later, { rank: 1 }, 'still the 13th for this user');
  t.same((await s.event('m', { user: { id: 'k' }, value: 50 })).body.leaderboards, {}, 'the board is over on the 15th in Kiritimati');

  s.clock.set('2026-03-14T11:59:00Z');
  await s.app.scheduler.runOnce();
  t.equal((await s.call('GET', `/admin/v1/leaderboards/${later.id}`)).body.status, 'active', 'not final while the 13th lasts somewhere');
  s.clock.set('2026-03-14T12:00:00Z');
  await s.app.scheduler.runOnce();
  t.equal((await s.call('GET', `/admin/v1/leaderboards/${later.id}`)).body.status, 'finished');
  const last = await s.call('GET', '/v1/leaderboards/later');
  t.equal(last.status, 200, 'a finished board stays readable by key');
  t.equal(last.body.status, 'finished');
  t.same(ranks(last), ['1:p:9', '2:k:5'], 'with its final rankings');
  t.same((await s.call('GET', '/v1/leaderboards')).body.map((x: { key: string }) => x.key), [], 'finished boards are not listed to users');
  t.same((await s.call('GET', '/v1/leaderboards?includeFinished=true')).body.map((x: { key: string; status: string }) => `${x.key}:${x.status}`), ['later:finished']);
  t.same(ranks(await s.call('GET', '/v1/leaderboards/later?run=2026-03-12')), ['1:p:9', '2:k:5'], 'final rankings stay readable');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/later?run=2026-03-12&offset=1')), ['2:k:5'], 'a final page starts at its offset');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/later?run=2026-03-12&userId=k')), ['2:k:5'], 'from a user of a final run');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/later?run=2026-03-12&userId=p&limit=2')), ['1:p:9', '2:k:5']);
  t.same(ranks(await s.call('GET', '/v1/leaderboards/later?run=2026-03-12&userId=nobody')), []);
});

t.test('a weekly board across three runs', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await board(s, { key: 'weekly', name: 'Weekly', rankBy: 'metric', metricId: m!.id, start: '2026-03-02', runUnit: 'day', runInterval: 7, status: 'active' });
  const week = async (monday: string, values: [string, number][]) => {
    for (const [u, v] of values) {
      s.clock.set(`${monday}T12:00:00Z`);
      await s.event('m', { user: { id: u }, value: v });
    }
  };
  await week('2026-03-02', [['a', 5], ['b', 3]]);
  await week('2026-03-09', [['b', 4], ['c', 1]]);
  await s.app.scheduler.runOnce();
  await week('2026-03-16', [['a', 1]]);
  const now = await s.call('GET', '/v1/leaderboards/weekly');
  t.match(now.body, { start: '2026-03-16', end: '2026-03-22' });
  t.same(ranks(now), ['1:a:1'], 'each run ranks on its own');
  await s.app.scheduler.runOnce();
  t.same(ranks(await s.call('GET', '/v1/leaderboards/weekly?run=2026-03-04')), ['1:a:5', '2:b:3']);
  t.same(ranks(await s.call('GET', '/v1/leaderboards/weekly?run=2026-03-15')), ['1:b:4', '2:c:1']);
  const ev = await s.event('m', { user: { id: 'a' }, value: 2 });
  t.match(ev.body.leaderboards.weekly, { start: '2026-03-16', end: '2026-03-22', rank: 1 });
  t.match((await s.call('GET', '/v1/users/a/leaderboards/weekly')).body, { rank: 1, value: 3 });
  t.match((await s.call('GET', '/v1/users/a/leaderboards/weekly?run=2026-03-02')).body, { rank: 1, value: 5 });
});

t.test('breakdowns, points boards and streak boards', async (t) => {
  const s = await startServer(t);
  const attrs = await s.attributes([{ key: 'team', type: 'user' }, { key: 'region', type: 'user' }]);
  const id = (k: string) => attrs[k]!.id;
  const { m } = await s.metrics(['m']);
  await board(s, { key: 'by-team', name: 'By team', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', status: 'active', breakdownAttributes: [id('team')], maxParticipants: 1 });
  await board(s, { key: 'by-both', name: 'By both', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', status: 'active', breakdownAttributes: [id('team'), id('region')] });
  const users: [string, string, string, number][] = [['u1', 'red', 'eu', 5], ['u2', 'red', 'us', 7], ['u3', 'blue', 'eu', 2]];
  for (const [u, team, region, v] of users) await s.event('m', { user: { id: u, attributes: { team, region } }, value: v });
  t.equal((await s.call('GET', '/v1/leaderboards/by-team')).status, 422, 'a broken-down board needs userAttributes');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/by-team?userAttributes=team:red')), ['1:u2:7'], 'the limit applies per group');
  t.same(ranks(await s.call('GET', '/v1/leaderboards/by-team?userAttributes=team:blue')), ['1:u3:2']);
  t.same(ranks(await s.call('GET', '/v1/leaderboards/by-both?userAttributes=team:red,region:eu')), ['1:u1:5']);
  const ev = await s.event('m', { user: { id: 'u3' }, value: 1 });
  t.match(ev.body.leaderboards['by-both'], { breakdownAttributeValue: 'blue', breakdownAttributeValues: [{ key: 'team', value: 'blue' }, { key: 'region', value: 'eu' }] });

  const xp = (await s.call('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 10, status: 'active' }] }],
  })).body.created[0];
  await board(s, { key: 'xp-board', name: 'XP', rankBy: 'points', pointsSystemId: xp.id, start: '2026-03-01', status: 'active' });
  const fed = await s.event('m', { user: { id: 'u9' }, value: 2 });
  t.match(fed.body.leaderboards['xp-board'], { rankBy: 'points', pointsSystemKey: 'xp', rank: 1 });
  t.same(ranks(await s.call('GET', '/v1/leaderboards/xp-board')), ['1:u9:20']);

  t.match((await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'bad', name: 'Bad', rankBy: 'streak', runUnit: 'day', runInterval: 7 }] })).body.issues[0].message, /perpetual/);
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } });
  await board(s, { key: 'streaky', name: 'Streaks', rankBy: 'streak', start: '2026-03-01', status: 'active' });
  await s.event('m', { user: { id: 's1' }, value: 1 });
  s.clock.advance(86_400_000);
  const again = await s.event('m', { user: { id: 's1' }, value: 1 });
  t.match(again.body.leaderboards.streaky, { rank: 1 });
  t.same(ranks(await s.call('GET', '/v1/leaderboards/streaky')), ['1:s1:2']);
});

t.test('a board created with its end date past reads as finished', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  // The clock starts at 2026-03-10 12:00 UTC.
  const past = await board(s, { key: 'past', name: 'Past', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', end: '2026-03-05', status: 'active' });
  t.equal(past.status, 'finished', 'the creation answers the status it has');
  t.same((await s.event('m', { user: { id: 'u' }, value: 1 })).body.leaderboards, {}, 'nobody joins it');
  for (const when of ['before the scheduler ran', 'after']) {
    t.equal((await s.call('GET', `/admin/v1/leaderboards/${past.id}`)).body.status, 'finished', `admin read, ${when}`);
    t.match((await s.call('GET', '/admin/v1/leaderboards')).body, [{ key: 'past', status: 'finished' }]);
    const read = await s.call('GET', '/v1/leaderboards/past');
    t.equal(read.status, 200, when);
    t.match(read.body, { key: 'past', status: 'finished', rankings: [] });
    t.equal((await s.call('GET', '/v1/leaderboards/past?run=2026-03-03')).body.status, 'finished');
    t.match((await s.call('GET', '/v1/users/u/leaderboards/past')).body, { status: 'finished', rank: null, value: null, history: [] });
    t.same((await s.call('GET', '/v1/leaderboards')).body, []);
    t.match((await s.call('GET', '/v1/leaderboards?includeFinished=true')).body, [{ key: 'past', status: 'finished' }]);
    await s.app.scheduler.runOnce();
  }
  const { rows } = await s.app.ctx.db.query('SELECT finalized_run FROM leaderboards WHERE id = $1', [past.id]);
  t.same(rows, [{ finalized_run: 0 }], 'a perpetual board has one run to finalize');
});

t.test('a repeating board that ends while running answers its last run', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  const weekly = await board(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: m!.id, start: '2026-03-02', end: '2026-03-15', runUnit: 'day', runInterval: 7, status: 'active' });
  s.clock.set('2026-03-04T12:00:00Z');
  await s.event('m', { user: { id: 'a', tz: 'UTC' }, value: 5 });
  await s.event('m', { user: { id: 'b', tz: 'UTC' }, value: 3 });
  s.clock.set('2026-03-12T12:00:00Z');
  await s.event('m', { user: { id: 'b' }, value: 7 });
  await s.event('m', { user: { id: 'c', tz: 'UTC' }, value: 2 });
  await s.app.scheduler.runOnce(); // finalizes the first week
  t.equal((await s.call('GET', '/v1/leaderboards/wk')).body.status, 'active');

  // The 15th is over everywhere at noon UTC on the 16th.
  s.clock.set('2026-03-16T11:59:00Z');
  t.equal((await s.call('GET', `/admin/v1/leaderboards/${weekly.id}`)).body.status, 'active', 'the last day still lasts somewhere');
  s.clock.set('2026-03-16T12:00:00Z');
  const check = async (when: string) => {
    t.equal((await s.call('GET', `/admin/v1/leaderboards/${weekly.id}`)).body.status, 'finished', `admin, ${when}`);
    const last = await s.call('GET', '/v1/leaderboards/wk');
    t.equal(last.status, 200);
    t.match(last.body, { status: 'finished', start: '2026-03-09', end: '2026-03-15' }, `the last run, ${when}`);
    t.same(ranks(last), ['1:b:7', '2:c:2']);
    const first = await s.call('GET', '/v1/leaderboards/wk?run=2026-03-03');
    t.match(first.body, { status: 'finished', start: '2026-03-02', end: '2026-03-08' }, 'run= still picks an earlier run');
    t.same(ranks(first), ['1:a:5', '2:b:3']);
    t.match((await s.call('GET', '/v1/users/b/leaderboards/wk')).body, { status: 'finished', start: '2026-03-09', rank: 1, value: 7 });
    t.match((await s.call('GET', '/v1/users/b/leaderboards/wk?run=2026-03-02')).body, { status: 'finished', rank: 2, value: 3 });
    t.same((await s.call('GET', '/v1/leaderboards')).body, [], `not listed, ${when}`);
    t.match((await s.call('GET', '/v1/leaderboards?includeFinished=true')).body, [{ key: 'wk', status: 'finished' }]);
  };
  await check('before the scheduler ran');
  await s.app.scheduler.runOnce();
  await check('once its last run is stored');
  s.clock.set('2026-04-20T12:00:00Z');
  await check('weeks later');
});

t.test("a daily time window opens on each participant's own clock", async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await board(s, { key: 'office', name: 'Office hours', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', startTime: '09:00', endTime: '17:00', status: 'active' });
  const tokyo = 'Asia/Tokyo';
  const la = 'America/Los_Angeles';
  const counted = async (id: string, tz: string) => (await s.event('m', { user: { id, tz }, value: 1 })).body.leaderboards.office !== undefined;
  const local = (iso: string, zone: string) => s.clock.set(DateTime.fromISO(iso, { zone }).toMillis());

  local('2026-03-11T09:00', tokyo); // 17:00 on the 10th in Los Angeles
  t.equal(await counted('tk', tokyo), true, '09:00 in Tokyo: the window opens');
  t.equal(await counted('la', la), false, '17:00 in Los Angeles: closed');
  local('2026-03-11T16:59', tokyo);
  t.equal(await counted('tk', tokyo), true, '16:59 in Tokyo');
  t.equal(await counted('la', la), false, '00:59 in Los Angeles');
  local('2026-03-11T17:00', tokyo);
  t.equal(await counted('tk', tokyo), false, '17:00 in Tokyo: the end is not included');
  local('2026-03-11T09:00', la); // 01:00 on the 12th in Tokyo
  t.equal(await counted('la', la), true, '09:00 in Los Angeles: open there');
  t.equal(await counted('tk', tokyo), false, '01:00 in Tokyo: closed there');
  const rows = (await s.call('GET', '/v1/leaderboards/office')).body.rankings.map((x: { userId: string; value: number }) => `${x.userId}:${x.value}`);
  t.same(rows, ['la:3', 'tk:2'], 'each ranked at the total its last event inside the window reached');
});

t.test('a repeating board finished through the Admin API keeps answering the run it ended in', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  const daily = await board(s, { key: 'daily', name: 'Daily', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', runUnit: 'day', runInterval: 1, status: 'active' });
  await s.event('m', { user: { id: 'a', tz: 'UTC' }, value: 4 });
  const done = await s.call('PATCH', '/admin/v1/leaderboards', { body: [{ id: daily.id, status: 'finished' }] });
  t.match(done.body.updated, [{ status: 'finished', end: '2026-03-10' }], 'finishing ends it today');
  t.same((await s.event('m', { user: { id: 'a' }, value: 1 })).body.leaderboards, {}, 'nobody joins it any more');
  s.clock.set('2026-03-14T12:00:00Z');
  const last = await s.call('GET', '/v1/leaderboards/daily');
  t.match(last.body, { status: 'finished', start: '2026-03-10', end: '2026-03-10' }, 'days later, the run it ended in');
  t.same(ranks(last), ['1:a:4']);
  t.match((await s.call('GET', '/v1/users/a/leaderboards/daily')).body, { status: 'finished', rank: 1, value: 4 });
});

t.test("a run finalized while its events are still on the way to Postgres stays finished (no live entries come back)", async (t) => {
  // No background role: nothing flushes unless asked, so the run's record is still in the stream when it is finalized.
  const s = await startServer(t, {}, { http: true, background: false });
  const { steps } = await s.metrics(['steps']);
  await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'daily', name: 'Daily', rankBy: 'metric', metricId: steps!.id, start: '2026-03-01', runUnit: 'day', runInterval: 1, status: 'active' }] });
  t.equal((await s.event('steps', { user: { id: 'u1' }, value: 5 })).status, 201);
  s.clock.advance(2 * 86_400_000);
  await s.app.scheduler.runOnce();
  const tenant = (await s.app.ctx.tenants.all())[0]!;
  await s.app.ctx.durable.all(tenant);
  const count = async (table: string) => (await s.app.ctx.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
  t.equal(await count('leaderboard_results'), 1, 'the run is finished, its result stored');
  t.equal(await count('board_entries'), 0, 'and no live entry of it is left for a rebuild of Redis to bring back');
});
