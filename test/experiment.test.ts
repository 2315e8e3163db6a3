import t, { Test } from 'tap';
import typia from 'typia';
import { DateTime } from 'luxon';
import { startServer, TestServer } from './helpers/harness';
import { erfc, experimentFigures, normalCdf, twoProportionLift, UserActivity } from '../src/domain/experiment';
import type * as W from '../src/client';

const close = (t: Test, got: number, want: number, rel: number, what: string) =>
  t.ok(Math.abs(got - want) <= rel * Math.abs(want), `${what}: ${got} vs ${want}`);

t.test('the statistics: normal distribution and two-proportion lift against known values', async (t) => {
  // Reference values: Python's math.erfc (double precision).
  close(t, normalCdf(1.96), 0.9750021048517795, 1e-12, 'Φ(1.96)');
  close(t, normalCdf(-1), 0.15865525393145707, 1e-12, 'Φ(-1)');
  t.equal(normalCdf(0), 0.5, 'Φ(0)');
  close(t, normalCdf(-5), 2.866515718791946e-7, 1e-10, 'Φ(-5)');
  close(t, erfc(0.3), 0.6713732405408726, 1e-12, 'erfc(0.3)');
  close(t, erfc(2.9), 4.109787809945886e-5, 1e-9, 'erfc(2.9), the series side');
  close(t, erfc(3), 2.2090496998585438e-5, 1e-10, 'erfc(3), the continued fraction side');
  close(t, erfc(3.5), 7.430983723414128e-7, 1e-10, 'erfc(3.5)');
  close(t, erfc(6), 2.1519736712498916e-17, 1e-10, 'erfc(6)');

  // 24 of 40 against 15 of 40: p1 = 0.6, p2 = 0.375.
  const l = twoProportionLift(24, 40, 15, 40)!;
  close(t, l.difference, 0.225, 1e-12, 'difference');
  close(t, l.low, 0.011554515156679851, 1e-9, 'low: difference - 1.96 × √(p1(1-p1)/n1 + p2(1-p2)/n2)');
  close(t, l.high, 0.43844548484332013, 1e-12, 'high');
  close(t, l.pValue, 0.044105123266109166, 1e-9, 'pooled z = 2.01309, two-sided');
  const m = twoProportionLift(30, 100, 18, 90)!;
  close(t, m.pValue, 0.113211907453965, 1e-9, '30/100 against 18/90');
  close(t, m.low, -0.022052739056160134, 1e-9, 'an interval across zero');
  t.equal(twoProportionLift(10, 29, 10, 40), null, 'under 30 in the experiment group: null');
  t.equal(twoProportionLift(10, 40, 10, 29), null, 'under 30 in the control group: null');
  t.not(twoProportionLift(10, 30, 10, 30), null, '30 each is enough');
  t.same(twoProportionLift(30, 30, 40, 40), { difference: 0, low: 0, high: 0, pValue: 1 }, 'everyone retained in both: p-value 1');
});

t.test('cohorts list the weeks over for every user of the cohort, shares per group', async (t) => {
  const u = (first: string, control: boolean, zone: string, weeks: number[]): UserActivity =>
    ({ first, control, zone, attr: null, d1: false, d7: false, d30: false, days: 1, events: 1, weeks });
  // Thursday 2026-04-16 10:00 UTC: Monday 04-13's week is not over, 04-06's is.
  const now = Date.parse('2026-04-16T10:00:00Z');
  const out = experimentFigures([
    u('2026-03-31', true, 'UTC', [0, 1, 2]), u('2026-04-05', false, 'UTC', [0, 2]), u('2026-04-01', false, 'UTC', [0]),
    u('2026-04-08', true, 'UTC', [0]),
  ], now, { from: '2026-03-30', to: '2026-04-12' }, false);
  t.same(out.cohorts, [
    { week: '2026-03-30', control: [1, 1], experiment: [1, 0] },
    { week: '2026-04-06', control: [1], experiment: [null] },
  ], 'weeks 0 and 1 of the first cohort (week 2 is this week), a group without users gives null shares');
  t.equal(out.byAttribute, undefined, 'no split unless asked');
});

const ZONES = { LA: 'America/Los_Angeles', UTC: 'UTC', TOKYO: 'Asia/Tokyo' } as const;
type Send = [user: string, zone: string, local: string, events?: number];

/** Events at local times ("YYYY-MM-DDTHH:mm" on the user's clock, the zone sent with each event), sent in time order. */
async function sendAll(s: TestServer, sends: Send[]): Promise<void> {
  const timed = sends.map(([user, zone, local, n]) => ({ user, zone, n: n ?? 1, at: DateTime.fromISO(local, { zone }).toMillis() }));
  timed.sort((a, b) => a.at - b.at);
  for (const e of timed) {
    s.clock.set(e.at);
    for (let i = 0; i < e.n; i++) {
      const r = await s.event('visits', { user: { id: e.user, tz: e.zone }, value: 2 });
      if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    }
  }
}

async function createUsers(s: TestServer, users: [id: string, zone: string, plan: string | null][], control: boolean): Promise<void> {
  await s.call('PUT', '/admin/v1/retention', { body: { controlRatio: control ? 1 : 0 } });
  for (const [id, tz, plan] of users) {
    const r = await s.call('PUT', `/v1/users/${id}`, { body: { tz, ...(plan ? { attributes: { plan } } : {}) } });
    if (r.status >= 300 || r.body.control !== control) throw new Error(`${id}: ${JSON.stringify(r.body)}`);
  }
}

/**
 * Control: c1, c2, c3 (c4 first active after the range; idle never active).
 * Experiment: e1..e4, e6 (e5 first active before the range). Range
 * 2026-03-27 (Fri) to 04-02 (Thu), across March's end, in three zones.
 * Dates below are the users' local dates; hh:mm 10:00 unless said.
 *   c1 UTC   free  03-28 ×2, 03-29                 day 0, 1
 *   c2 LA    pro   03-31, 04-07 ×3, 04-30          day 0, 7, 30
 *   c3 Tokyo  -    04-01, 04-02, 04-03             day 0, 1, 2
 *   e1 Tokyo free  03-27, 03-28 ×2, 04-03, 04-25, 04-26   day 0, 1, 7, 29, 30
 *   e2 LA    pro   03-31 ×2, 04-01                 day 0, 1
 *   e3 UTC   free  04-02, 04-09, 05-01 (today, read live)  day 0, 7, 29
 *   e4 LA→Tokyo pro  03-30 20:00 LA (03-31 03:00 UTC), then 03-31 23:00 Tokyo (03-31 14:00 UTC): day 0, 1 as
 *                  recorded (in Tokyo's zone both would fall on 03-31)
 *   e6 UTC   free  03-29, 03-30                    day 0, 1 (erased at the end)
 * Asked at 2026-05-01 03:00 UTC: today is 05-01 in UTC and Tokyo, 04-30 in Los Angeles.
 */
async function seed(t: Test) {
  const s = await startServer(t);
  await s.metrics(['visits']);
  await s.attributes([{ key: 'plan', type: 'user' }]);
  await createUsers(s, [['c1', ZONES.UTC, 'free'], ['c2', ZONES.LA, 'pro'], ['c3', ZONES.TOKYO, null], ['c4', ZONES.UTC, 'free'], ['idle', ZONES.UTC, 'pro']], true);
  await createUsers(s, [
    ['e1', ZONES.TOKYO, 'free'], ['e2', ZONES.LA, 'pro'], ['e3', ZONES.UTC, 'free'], ['e4', ZONES.LA, 'pro'], ['e5', ZONES.UTC, 'pro'], ['e6', ZONES.UTC, 'free'],
  ], false);
  const { LA, UTC, TOKYO } = ZONES;
  await sendAll(s, [
    ['c1', UTC, '2026-03-28T10:00', 2], ['c1', UTC, '2026-03-29T10:00'],
    ['c2', LA, '2026-03-31T10:00'], ['c2', LA, '2026-04-07T10:00', 3], ['c2', LA, '2026-04-30T10:00'],
    ['c3', TOKYO, '2026-04-01T10:00'], ['c3', TOKYO, '2026-04-02T10:00'], ['c3', TOKYO, '2026-04-03T10:00'],
    ['c4', UTC, '2026-04-03T10:00'],
    ['e1', TOKYO, '2026-03-27T10:00'], ['e1', TOKYO, '2026-03-28T10:00', 2], ['e1', TOKYO, '2026-04-03T10:00'],
    ['e1', TOKYO, '2026-04-25T10:00'], ['e1', TOKYO, '2026-04-26T10:00'],
    ['e2', LA, '2026-03-31T10:00', 2], ['e2', LA, '2026-04-01T10:00'],
    ['e3', UTC, '2026-04-02T10:00'], ['e3', UTC, '2026-04-09T10:00'],
    ['e4', LA, '2026-03-30T20:00'], ['e4', TOKYO, '2026-03-31T23:00'],
    ['e5', UTC, '2026-03-26T10:00'], ['e5', UTC, '2026-03-27T10:00'],
    ['e6', UTC, '2026-03-29T10:00'], ['e6', UTC, '2026-03-30T10:00'],
  ]);
  await s.drain();
  // The background job sums some of the closed days; the request sums the rest.
  await s.app.scheduler.runOnce();
  await sendAll(s, [['e3', UTC, '2026-05-01T02:00']]);
  s.clock.set('2026-05-01T03:00:00Z');
  await s.drain();
  return s;
}

const RANGE = 'from=2026-03-27&to=2026-04-02';
const group = (users: number, d1: number | null, d7: number | null, d30: number | null, activeDaysPerUser: number | null, eventsPerActiveDay: number | null) =>
  ({ users, retention: { d1, d7, d30 }, activeDaysPerUser, eventsPerActiveDay });

t.test('experiment figures: exact, from recorded local dates, in three zones across a month boundary', async (t) => {
  const s = await seed(t);
  t.same((await s.call('GET', '/admin/v1/users/e4/events')).body.map((e: { localDate: string }) => e.localDate), ['2026-03-31', '2026-03-30'],
    'e4 changed zone: each event keeps the date recorded then');

  const r = await s.call('GET', `/admin/v1/analytics/experiment?${RANGE}&attribute=plan`);
  t.equal(r.status, 200);
  t.ok(typia.is<W.ExperimentAnalytics>(r.body), 'the documented shape');
  t.same(r.body, {
    from: '2026-03-27', to: '2026-04-02',
    groups: {
      // d1: c1 yes, c2 no, c3 yes. d7: only c2. d30: c1 (no); c2's day 30 (04-30) is not over in Los Angeles, c3's (05-01) not in Tokyo.
      // Active days 2 + 2 + 3 (c2's day 30 is past day 29) = 7 over 3 users; events 3 + 4 + 3 = 10 over 7 days.
      control: group(3, 0.6667, 0.3333, 0, 2.3333, 1.4286),
      // d1: e1, e2, e4, e6 of 5 (e3 no). d7: e1, e3. d30: e1 yes, e4 and e6 no (e2's not over in LA, e3's is 05-02).
      // Active days 4 + 2 + 3 + 2 + 2 = 13; events 5 + 3 + 3 + 2 + 2 = 15.
      experiment: group(5, 0.8, 0.4, 0.3333, 2.6, 1.1538),
    },
    lift: { d1: null, d7: null, d30: null },
    cohorts: [
      // Mon 03-23: c1; e1, e6. Five weeks over (to Sun 04-26; today is 05-01 for all three).
      { week: '2026-03-23', control: [1, 0, 0, 0, 0], experiment: [1, 1, 0, 0, 0.5] },
      // Mon 03-30: c2, c3; e2, e3, e4. Four weeks over: in Los Angeles it is still 04-30, so the week to 05-03 is not.
      { week: '2026-03-30', control: [1, 0.5, 0, 0], experiment: [1, 0.3333, 0, 0] },
    ],
    byAttribute: {
      free: { control: group(1, 1, 0, 0, 2, 1.5), experiment: group(3, 0.6667, 0.6667, 0.5, 3, 1.1111) },
      pro: { control: group(1, 0, 1, null, 2, 2), experiment: group(2, 1, 0, 0, 2, 1.25) },
    },
  }, 'every figure as computed by hand (c3 has no plan: out of the split only)');

  t.same((await s.call('GET', '/admin/v1/analytics/experiment?from=2026-03-30&to=2026-03-31')).body.groups,
    { control: group(1, 0, 1, null, 2, 2), experiment: group(2, 1, 0, 0, 2, 1.25) }, 'a narrower range: c2; e2, e4');
  t.same((await s.call('GET', '/admin/v1/analytics/experiment?from=2026-06-01&to=2026-06-30')).body,
    { from: '2026-06-01', to: '2026-06-30', groups: { control: group(0, null, null, null, null, null), experiment: group(0, null, null, null, null, null) },
      lift: { d1: null, d7: null, d30: null }, cohorts: [] }, 'nobody: nulls, no cohorts');

  // Erasure takes e6 out of every figure.
  t.equal((await s.call('DELETE', '/admin/v1/users/e6')).status, 200);
  const after = (await s.call('GET', `/admin/v1/analytics/experiment?${RANGE}&attribute=plan`)).body;
  t.same(after.groups.experiment, group(4, 0.75, 0.5, 0.5, 2.75, 1.1818), 'the experiment group without e6');
  t.same(after.cohorts[0], { week: '2026-03-23', control: [1, 0, 0, 0, 0], experiment: [1, 1, 0, 0, 1] }, 'its cohort without e6');
  t.same(after.byAttribute.free.experiment, group(2, 0.5, 1, 1, 3.5, 1.1429), 'its attribute value without e6');
  t.same(after.groups.control, r.body.groups.control, 'the control group unchanged');
  const { rows } = await s.app.ctx.db.query('SELECT count(*)::int AS n FROM rollup_user_days WHERE user_id = $1', ['e6']);
  t.equal(rows[0].n, 0, 'no daily row of e6 is kept');
});

t.test('experiment: the lift on 40 users a group, null under 30', async (t) => {
  const s = await startServer(t);
  await s.metrics(['visits']);
  const ids = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
  await createUsers(s, ids('c', 40).map((id) => [id, 'UTC', null]), true);
  await createUsers(s, ids('e', 40).map((id) => [id, 'UTC', null]), false);
  // 03-10: every experiment user and c0..c28. 03-11: e0..e23 and c0..c14 come back; c29..c39 start.
  const at10 = ids('e', 40).concat(ids('c', 29)).map((u): Send => [u, 'UTC', '2026-03-10T12:00']);
  const at11 = ids('e', 24).concat(ids('c', 15), ids('c', 40).slice(29)).map((u): Send => [u, 'UTC', '2026-03-11T12:00']);
  await sendAll(s, [...at10, ...at11]);
  s.clock.set('2026-03-13T12:00:00Z');
  await s.drain();
  const both = (await s.call('GET', '/admin/v1/analytics/experiment?from=2026-03-10&to=2026-03-11')).body;
  t.same(both.groups.experiment.retention, { d1: 0.6, d7: null, d30: null }, '24 of 40; day 7 not over for anyone');
  t.same(both.groups.control.retention, { d1: 0.375, d7: null, d30: null }, '15 of 40');
  // The formulas on 24/40 against 15/40 (see the first test), to 4 decimals.
  t.same(both.lift, { d1: { difference: 0.225, low: 0.0116, high: 0.4384, pValue: 0.0441 }, d7: null, d30: null });
  const first = (await s.call('GET', '/admin/v1/analytics/experiment?from=2026-03-10&to=2026-03-10')).body;
  t.equal(first.groups.control.users, 29);
  t.same(first.lift, { d1: null, d7: null, d30: null }, '29 control users: too few for a lift');
});

t.test('experiment: 422 for a bad range or attribute; admin key only', async (t) => {
  const s = await startServer(t);
  const bad: [string, RegExp][] = [
    ['from=2026-03-10&to=2026-03-09', /to must not be before from/],
    ['from=2026-02-30&to=2026-03-09', /query\.from/],
    ['from=2026-03-01&to=2026-13-01', /query\.to/],
    ['from=2026-03-01&to=2026-03-09&attribute=nope', /not a user attribute/],
    ['from=2026-03-01&to=2026-03-09&attribute=', /query\.attribute/],
  ];
  for (const [q, error] of bad) {
    const r = await s.call('GET', `/admin/v1/analytics/experiment?${q}`);
    t.equal(r.status, 422, q);
    t.match(r.body, { error }, q);
  }
  t.equal((await s.call('GET', '/admin/v1/analytics/experiment?from=2026-03-01&to=2026-03-09', { key: null })).status, 401);
});

t.test('leaderboard run statistics match the board’s own rankings of each run', async (t) => {
  const s = await startServer(t);
  const m = await s.metrics(['lessons']);
  const b = await s.call('POST', '/admin/v1/leaderboards', {
    body: [{ key: 'daily', name: 'Daily', rankBy: 'metric', metricId: m.lessons!.id, start: '2026-03-10', runUnit: 'day', runInterval: 1, status: 'active' }],
  });
  t.equal(b.status, 201, JSON.stringify(b.body));
  const send = async (user: string, value: number) => t.equal((await s.event('lessons', { user: { id: user, tz: 'UTC' }, value })).status, 201);
  // 03-10: 5, 3, 1 (u4 adds 2 + 2). 03-11: 2, 4. 03-12 (live): 7.
  await send('u1', 5); await send('u2', 3); await send('u3', 1); await send('u4', 2); await send('u4', 2);
  s.clock.set('2026-03-11T12:00:00Z');
  await send('u1', 2); await send('u2', 4);
  s.clock.set('2026-03-12T12:00:00Z');
  await send('u3', 7);
  await s.app.scheduler.runOnce(); // the runs of 03-10 and 03-11 are stored final
  await s.drain();

  const stats = await s.call('GET', '/admin/v1/analytics/leaderboards/daily?from=2026-03-09&to=2026-03-13');
  t.equal(stats.status, 200);
  t.ok(typia.is<W.LeaderboardRunStats[]>(stats.body), 'the documented shape');
  const expected = [];
  for (const run of ['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13']) {
    const ranks = (await s.call('GET', `/v1/leaderboards/daily?run=${run}&limit=1000`)).body.rankings.map((r: { value: number }) => r.value) as number[];
    const mid = ranks.length / 2;
    const median = ranks.length === 0 ? null : ranks.length % 2 ? ranks[Math.floor(mid)]! : (ranks[mid - 1]! + ranks[mid]!) / 2;
    expected.push({ start: run, end: run, participants: ranks.length, top: ranks[0] ?? null, median });
  }
  t.same(stats.body, expected, 'participants, top and median of each run, from its rankings');
  t.same(stats.body.slice(0, 3).map((r: { participants: number; top: number; median: number }) => [r.participants, r.top, r.median]),
    [[4, 5, 3.5], [2, 4, 3], [1, 7, 7]], 'by hand: 5 4 3 1; 4 2; 7');
  t.same((await s.call('GET', '/admin/v1/analytics/leaderboards/daily?from=2026-03-01&to=2026-03-09')).body, [], 'before the board');
  t.equal((await s.call('GET', '/admin/v1/analytics/leaderboards/nope?from=2026-03-01&to=2026-03-09')).status, 404);
  t.equal((await s.call('GET', '/admin/v1/analytics/leaderboards/daily?from=2026-03-09&to=2026-03-01')).status, 422);
});

t.test('removing a tenant empties its per-user and per-trigger sums', async (t) => {
  const s = await startServer(t);
  const tenant = (await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'doomed', name: 'Doomed' }] })).body.created[0];
  const { m } = await s.metrics(['m'], 'doomed');
  await s.call('POST', '/admin/v1/points', { tenant: 'doomed', body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
  t.equal((await s.event('m', { user: { id: 'u' }, value: 1 }, { tenant: 'doomed' })).status, 201);
  s.clock.set('2026-03-12T12:00:00Z');
  await s.drain();
  t.equal((await s.call('GET', '/admin/v1/analytics/experiment?from=2026-03-10&to=2026-03-10', { tenant: 'doomed' })).body.groups.experiment.users, 1);
  const rows = async () => {
    const out: Record<string, number> = {};
    for (const table of ['rollup_user_days', 'rollup_users', 'rollup_trigger_points']) {
      out[table] = (await s.app.ctx.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenant.id])).rows[0].n;
    }
    return out;
  };
  t.same(await rows(), { rollup_user_days: 1, rollup_users: 1, rollup_trigger_points: 1 }, 'the closed day, summed');
  t.equal((await s.call('DELETE', `/admin/v1/tenants?ids=${tenant.id}`)).status, 200);
  t.same(await rows(), { rollup_user_days: 0, rollup_users: 0, rollup_trigger_points: 0 }, 'none left');
});
