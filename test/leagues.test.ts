import t from 'tap';
import { startServer, TestServer } from './helpers/harness';

const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 2, relegate: 0 },
  { key: 'silver', name: 'Silver', promote: 2, relegate: 2 },
  { key: 'gold', name: 'Gold', promote: 0, relegate: 2 },
];

async function league(s: TestServer, body: Record<string, unknown>) {
  const r = await s.call('POST', '/admin/v1/leagues', { body: [body] });
  if (r.status !== 201 || r.body.issues.length) throw new Error(`league setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0];
}

t.test('validation: each refusal names its field and creates nothing', async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  const ok = { key: 'weekly', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', tiers: TIERS };
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ ...ok, cohortSize: 1 }, /cohortSize/],
    [{ ...ok, cohortSize: 101 }, /cohortSize/],
    [{ ...ok, tiers: [TIERS[0]] }, /tiers/],
    [{ ...ok, tiers: [TIERS[0], { ...TIERS[2], key: 'bronze' }] }, /tiers\[1\]\.key.*duplicate/],
    [{ ...ok, cohortSize: 3, tiers: [TIERS[0], TIERS[1], TIERS[2]] }, /tiers\[1\].*promote \+ relegate.*cohortSize/],
    [{ ...ok, tiers: [{ ...TIERS[0], relegate: 1 }, TIERS[2]] }, /tiers\[0\]\.relegate/],
    [{ ...ok, tiers: [TIERS[0], { ...TIERS[2], promote: 1 }] }, /tiers\[1\]\.promote/],
    [{ ...ok, metricId: '00000000-0000-4000-8000-000000000000' }, /metricId/],
    [{ ...ok, rankBy: 'points', metricId: undefined, pointsSystemId: '00000000-0000-4000-8000-000000000000' }, /pointsSystemId/],
    [{ ...ok, timeZone: 'Mars/Olympus' }, /timeZone/],
    [{ ...ok, cadence: 'hourly' }, /cadence/],
  ];
  for (const [body, message] of bad) {
    const r = await s.call('POST', '/admin/v1/leagues', { body: [body] });
    t.equal(r.status, 200, `refused: ${message}`);
    t.equal(r.body.created.length, 0);
    t.match(r.body.issues[0].message, message);
  }
  t.same((await s.call('GET', '/admin/v1/leagues')).body, [], 'nothing was created');
  const made = await league(s, ok);
  t.match(made, { key: 'weekly', status: 'active', cohortSize: 30, weekStart: 'monday', timeZone: 'America/New_York',
    currentRun: { start: '2026-03-09', end: '2026-03-15', cohorts: [{ tier: 'bronze', cohorts: 0 }, { tier: 'silver', cohorts: 0 }, { tier: 'gold', cohorts: 0 }] } });
  const again = await s.call('POST', '/admin/v1/leagues', { body: [ok] });
  t.match(again.body.issues[0].message, /key.*already used/);
  t.equal((await s.call('GET', `/admin/v1/leagues/${made.id}`)).body.key, 'weekly');
});

t.test('joining: first scoring event, oldest cohort with room, the event response', async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  const l = await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 4, tiers: TIERS, timeZone: 'UTC' });
  const first = await s.event('xp', { user: { id: 'u1', name: 'Ann' }, value: 10 });
  t.equal(first.status, 201);
  t.same(first.body.leagues, { wk: { tier: 'bronze', cohortId: `${Math.floor((20522 + 3) / 7)}-0-1`, rank: 1, previousRank: null, value: 10, zone: 'stay' } });
  t.equal(first.body.leagues.wk.zone, 'stay', 'alone in a cohort of 4: floor(2*1/4) = 0 promoted');
  const cohort = first.body.leagues.wk.cohortId;
  for (const [i, v] of [20, 5, 10].entries()) await s.event('xp', { user: { id: `u${i + 2}` }, value: v });
  // u4 ties with u1 at 10: u1 reached it first.
  const read = await s.call('GET', '/v1/users/u1/leagues/wk');
  t.match(read.body, { key: 'wk', name: 'Weekly', run: { start: '2026-03-09', end: '2026-03-15' }, tier: { key: 'bronze', name: 'Bronze', index: 0 }, rank: 2, value: 10, zone: 'promotion', lastResult: null });
  t.same(read.body.cohort.rankings.map((r: { userId: string; rank: number }) => `${r.rank}:${r.userId}`), ['1:u2', '2:u1', '3:u4', '4:u3']);
  t.equal(read.body.cohort.rankings[1].userName, 'Ann');
  const fifth = await s.event('xp', { user: { id: 'u5' }, value: 1 });
  t.not(fifth.body.leagues.wk.cohortId, cohort, 'a full cohort opens a new one');
  t.match(fifth.body.leagues.wk, { rank: 1, zone: 'stay' }, 'a cohort of one promotes floor(2*1/4) = 0');
  const again = await s.event('xp', { user: { id: 'u3' }, value: 30 });
  t.match(again.body.leagues.wk, { cohortId: cohort, rank: 1, previousRank: 4, value: 35 });
  t.same((await s.event('xp', { user: { id: 'u6' }, value: -3 })).body.leagues, {}, 'nobody joins with nothing to show');
  const none = await s.call('GET', '/v1/users/u6/leagues/wk');
  t.match(none.body, { cohort: null, rank: null, value: null, zone: 'stay', tier: { key: 'bronze', index: 0 } });
  t.equal((await s.call('GET', '/v1/users/nobody/leagues/wk')).status, 404);
  t.equal((await s.call('GET', '/v1/users/u1/leagues/nope')).status, 404);
  const c = await s.call('GET', `/v1/leagues/wk/cohorts/${cohort}`);
  t.match(c.body, { id: cohort, tier: { key: 'bronze', index: 0 }, run: { start: '2026-03-09' } });
  t.equal(c.body.rankings.length, 4);
  const admin = await s.call('GET', `/admin/v1/leagues/${l.id}`);
  t.same(admin.body.currentRun.cohorts[0], { tier: 'bronze', cohorts: 2 });
});

t.test('200 parallel first events into one tier', async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 7, tiers: TIERS });
  const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => s.event('xp', { user: { id: `p${i}` }, value: 1 + (i % 13) })));
  t.ok(replies.every((r) => r.status === 201));
  const byCohort = new Map<string, string[]>();
  replies.forEach((r, i) => {
    const id = r.body.leagues.wk.cohortId as string;
    byCohort.set(id, [...(byCohort.get(id) ?? []), `p${i}`]);
  });
  t.equal(byCohort.size, Math.ceil(200 / 7));
  const seen: string[] = [];
  const over: string[] = [];
  for (const id of byCohort.keys()) {
    const c = await s.call('GET', `/v1/leagues/wk/cohorts/${id}`);
    if (c.body.rankings.length > 7) over.push(id);
    for (const r of c.body.rankings) seen.push(r.userId);
  }
  t.same(over, [], 'no cohort over its size');
  t.equal(seen.length, 200, 'everybody in a cohort');
  t.equal(new Set(seen).size, 200, 'nobody in two');
});
