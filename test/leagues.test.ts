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
  t.same(first.body.leagues, { wk: { tier: 'bronze', cohortId: `${Math.floor((20522 - 4) / 7)}-0-1`, rank: 1, previousRank: null, value: 10, zone: 'stay' } });
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

t.test('finalization: zones at full and partial cohorts, each step repeated as after a crash, nothing twice', async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: ['league.promoted', 'league.relegated', 'league.finished'] }] });
  await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 4, tiers: TIERS, timeZone: 'UTC' });
  for (const [u, v] of [['a', 60], ['b', 50], ['c', 40], ['d', 30], ['e', 20], ['f', 10]] as const) await s.event('xp', { user: { id: u }, value: v });
  await s.drain();
  const run = Math.floor((20522 - 4) / 7); // the week, from Monday, of day 20522 (2026-03-10): periodIndexes' numbering
  const { ctx } = s.app;
  const tenant = (await ctx.tenants.all())[0]!;
  const l = (await ctx.configs.get(tenant)).leaguesByKey.get('wk')!;
  const { makeDurable, laterSteps, finalizeLeagues } = await import('../src/scheduler/leagues');
  const count = async (sql: string) => (await ctx.db.query(sql)).rows[0].n as number;
  const hooks = (type: string) => count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE type = '${type}'`);

  await s.app.scheduler.runOnce();
  t.equal(await count('SELECT count(*)::int AS n FROM league_results'), 0, 'nothing before the boundary');
  s.clock.set('2026-03-16T00:00:30Z');
  // Step 1 twice (a crash before step 2 makes the next pass redo it).
  t.equal(await makeDurable(ctx, tenant, l, run), 'durable');
  t.equal(await makeDurable(ctx, tenant, l, run), 'durable');
  t.equal(await count('SELECT count(*)::int AS n FROM league_results'), 6);
  t.same([await hooks('league.promoted'), await hooks('league.relegated'), await hooks('league.finished')], [3, 0, 1], 'a, b from the full cohort; e alone from the half one');
  // b plays the new run before the tiers are applied: the outcome is read from the frozen cohort.
  const early = await s.event('xp', { user: { id: 'b' }, value: 5 });
  t.match(early.body.leagues.wk, { tier: 'silver', rank: 1 });
  t.match((await s.call('GET', '/v1/users/a/leagues/wk')).body, { tier: { key: 'silver', index: 1 }, cohort: null });
  // An event computed before the boundary and run after the close moves nothing.
  s.clock.set('2026-03-15T23:59:59Z');
  const late = await s.event('xp', { user: { id: 'c' }, value: 100 });
  t.same(late.body.leagues, {}, 'a closed run takes no event');
  s.clock.set('2026-03-16T00:00:30Z');
  await laterSteps(ctx, tenant, l, run, 'durable');
  await laterSteps(ctx, tenant, l, run, 'durable');
  await finalizeLeagues(ctx, tenant);
  await finalizeLeagues(ctx, tenant);
  t.equal(await count(`SELECT count(*)::int AS n FROM league_runs WHERE state = 'freed'`), 1);
  t.same([await hooks('league.promoted'), await hooks('league.relegated'), await hooks('league.finished')], [3, 0, 1], 'no webhook twice');
  const finished = JSON.parse((await ctx.db.query(`SELECT payload FROM webhook_deliveries WHERE type = 'league.finished'`)).rows[0].payload);
  t.same(finished, { type: 'league.finished', league: { key: 'wk', name: 'Weekly' }, run: { start: '2026-03-09', end: '2026-03-15' }, cohorts: 2, participants: 6, promoted: 3, relegated: 0 });
  const promo = JSON.parse((await ctx.db.query(`SELECT payload FROM webhook_deliveries WHERE type = 'league.promoted' AND payload LIKE '%"id":"e"%'`)).rows[0].payload);
  t.same(promo, { type: 'league.promoted', league: { key: 'wk', name: 'Weekly' }, user: { id: 'e' }, run: { start: '2026-03-09', end: '2026-03-15' }, fromTier: 'bronze', toTier: 'silver', rank: 1, value: 20 });

  const hist = await s.call('GET', '/v1/users/a/leagues/wk/history');
  t.same(hist.body, [{ start: '2026-03-09', end: '2026-03-15', cohortId: `${run}-0-1`, tier: 'bronze', rank: 1, value: 60, outcome: 'promoted', newTier: 'silver' }]);
  t.match((await s.call('GET', '/v1/users/c/leagues/wk')).body, { tier: { key: 'bronze' }, lastResult: { outcome: 'stayed', rank: 3 } });
  t.match((await s.call('GET', '/v1/users/f/leagues/wk')).body, { tier: { key: 'bronze' }, lastResult: { outcome: 'stayed', rank: 2 } });
  t.match((await s.call('GET', '/v1/users/e/leagues/wk')).body, { tier: { key: 'silver' } });
  const old = await s.call('GET', `/v1/leagues/wk/cohorts/${run}-0-1`);
  t.same(old.body.rankings.map((r: { userId: string; rank: number; value: number }) => `${r.rank}:${r.userId}:${r.value}`), ['1:a:60', '2:b:50', '3:c:40', '4:d:30'], 'a finished cohort reads from Postgres');
  const runKey = ctx.keys.tenant(tenant.slot).leagueRun(l.slot, run);
  t.same(await ctx.redis.keys(`${runKey}*`), [runKey], "the finished run's cohorts are freed");
  t.same(await ctx.redis.hgetall(runKey), { t: '4503599627370496' }, 'its hash is left as a closed counter alone');
  // a joins the new run in silver too, with the settled tier.
  t.match((await s.event('xp', { user: { id: 'a' }, value: 1 })).body.leagues.wk, { tier: 'silver', cohortId: `${run + 1}-1-1`, rank: 2 });
});

t.test('a league in a zone other than UTC ends at its own midnight', async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  await league(s, { key: 'day', name: 'Daily', rankBy: 'metric', metricId: xp!.id, cadence: 'daily', cohortSize: 2, tiers: TIERS.slice(1).map((x, i) => ({ ...x, relegate: i === 0 ? 0 : 1, promote: i === 0 ? 1 : 0 })), timeZone: 'Asia/Tokyo' });
  // 12:00 UTC is 21:00 in Tokyo: the run is Tokyo's 10 March.
  const ev = await s.event('xp', { user: { id: 'a', tz: 'America/Los_Angeles' }, value: 3 });
  await s.event('xp', { user: { id: 'b' }, value: 2 });
  t.match((await s.call('GET', '/v1/users/a/leagues/wk'.replace('wk', 'day'))).body.run, { start: '2026-03-10', end: '2026-03-10' });
  t.ok(ev.body.leagues.day);
  s.clock.set('2026-03-10T14:59:00Z');
  await s.app.scheduler.runOnce();
  t.same((await s.call('GET', '/v1/users/a/leagues/day/history')).body, [], 'not before midnight in Tokyo');
  s.clock.set('2026-03-10T15:00:30Z');
  await s.app.scheduler.runOnce();
  t.match((await s.call('GET', '/v1/users/a/leagues/day/history')).body, [{ start: '2026-03-10', outcome: 'promoted', tier: 'silver', newTier: 'gold' }]);
  t.match((await s.call('GET', '/v1/users/b/leagues/day')).body, { tier: { key: 'silver' }, run: { start: '2026-03-11' }, lastResult: { outcome: 'stayed' } });
});

t.test('a Redis wipe and a rebuild from Postgres keep tiers, cohorts, rankings and history', async (t) => {
  const a = await startServer(t);
  const { xp } = await a.metrics(['xp']);
  await league(a, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 4, tiers: TIERS, timeZone: 'UTC' });
  for (const [u, v] of [['a', 60], ['b', 50], ['c', 40], ['d', 30], ['e', 20]] as const) await a.event('xp', { user: { id: u }, value: v });
  a.clock.set('2026-03-16T00:00:30Z');
  await a.app.scheduler.runOnce();
  // The new run: a and b in silver, c in bronze; then c ties with nobody, d joins after.
  for (const [u, v] of [['a', 7], ['c', 9], ['b', 7], ['d', 9]] as const) await a.event('xp', { user: { id: u }, value: v });
  await a.drain();
  const users = ['a', 'b', 'c', 'd', 'e'];
  const read = async (s: TestServer) => Promise.all(users.flatMap((u) => [s.call('GET', `/v1/users/${u}/leagues/wk`), s.call('GET', `/v1/users/${u}/leagues/wk/history`)]).map(async (p) => (await p).body));
  const before = await read(a);
  await a.app.close();
  const { purgePrefix } = await import('./helpers/harness');
  await purgePrefix(a.prefix);
  const b = await startServer(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  b.clock.set(a.clock.now());
  t.same(await read(b), before, 'every read answers as before');
  t.match(before[0], { tier: { key: 'silver' }, rank: 1, value: 7, cohort: { size: 2 } }, 'a leads silver (first to 7)');
  // Joining and scoring go on where they were: ties still go to the first to reach a value.
  t.match((await b.event('xp', { user: { id: 'e' }, value: 7 })).body.leagues.wk, { tier: 'bronze', rank: 3 }, 'e (alone last run: stayed) joins c and d');
  t.match((await b.event('xp', { user: { id: 'c' }, value: 1 })).body.leagues.wk, { rank: 1, previousRank: 1, value: 10 });
});

t.test('erasure takes the user out of their cohort and history; the export has their history', async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 3, tiers: TIERS.map((x) => ({ ...x, promote: Math.min(x.promote, 1), relegate: Math.min(x.relegate, 1) })), timeZone: 'UTC' });
  for (const [u, v] of [['a', 30], ['b', 20], ['c', 10]] as const) await s.event('xp', { user: { id: u }, value: v });
  s.clock.set('2026-03-16T00:00:30Z');
  await s.app.scheduler.runOnce();
  for (const [u, v] of [['x', 30], ['a', 20], ['y', 10]] as const) await s.event('xp', { user: { id: u }, value: v });
  await s.drain();
  const exp = await s.call('GET', '/admin/v1/users/a/export');
  t.same(exp.body.leagues, [{ key: 'wk', start: '2026-03-09', end: '2026-03-15', cohortId: `${Math.floor((20522 - 4) / 7)}-0-1`, tier: 'bronze', rank: 1, value: 30, outcome: 'promoted', newTier: 'silver' }]);
  const before = (await s.call('GET', '/v1/users/x/leagues/wk')).body.cohort;
  t.same(before.rankings.map((r: { userId: string }) => r.userId), ['x', 'y'], 'a plays silver; x and y bronze');
  const c = (await s.call('GET', '/v1/users/b/leagues/wk')).body;
  t.match(c, { tier: { key: 'bronze' }, lastResult: { outcome: 'stayed' } });
  // Erase b (in history only) and y (in the live cohort).
  t.equal((await s.call('DELETE', '/admin/v1/users/y')).status, 200);
  const after = (await s.call('GET', '/v1/users/x/leagues/wk')).body.cohort;
  t.same(after.rankings.map((r: { userId: string; rank: number }) => `${r.rank}:${r.userId}`), ['1:x'], 'y left at once');
  t.equal((await s.call('DELETE', '/admin/v1/users/b')).status, 200);
  t.equal((await s.call('GET', '/v1/users/b/leagues/wk')).status, 404);
  const old = await s.call('GET', `/v1/leagues/wk/cohorts/${Math.floor((20522 - 4) / 7)}-0-1`);
  t.same(old.body.rankings.map((r: { userId: string }) => r.userId), ['a', 'c'], 'b is gone from the finished cohort');
  t.equal((await s.app.ctx.db.query(`SELECT count(*)::int AS n FROM league_results WHERE user_id IN ('b', 'y')`)).rows[0].n, 0);
  // The room y left is filled by the next newcomer.
  t.match((await s.event('xp', { user: { id: 'z' }, value: 1 })).body.leagues.wk, { cohortId: before.id });
});

t.test("deleting a league removes its runs, results and Redis keys (an erased user's id with them); other leagues keep theirs", async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  const wk = await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 4, tiers: TIERS, timeZone: 'UTC' });
  const day = await league(s, { key: 'day', name: 'Daily', rankBy: 'metric', metricId: xp!.id, cadence: 'daily', cohortSize: 4, tiers: TIERS, timeZone: 'UTC' });
  for (const [u, v] of [['a', 30], ['b', 20], ['c', 10]] as const) await s.event('xp', { user: { id: u }, value: v });
  s.clock.set('2026-03-16T00:00:30Z');
  await s.app.scheduler.runOnce();
  await s.event('xp', { user: { id: 'a' }, value: 5 });
  await s.drain();
  const db = s.app.ctx.db;
  const slots = (await db.query<{ id: string; slot: number }>('SELECT id, slot FROM leagues')).rows;
  const tslot = (await db.query<{ slot: number }>("SELECT slot FROM tenants WHERE id = '00000000-0000-0000-0000-000000000000'")).rows[0]!.slot;
  const tk = s.app.ctx.keys.tenant(tslot);
  const keysOf = async (id: string) => {
    const slot = slots.find((x) => x.id === id)!.slot;
    return [...(await s.app.ctx.redis.keys(`${tk.league(slot)}:*`)), ...(await s.app.ctx.redis.keys(tk.league(slot)))];
  };
  const rowsOf = async (id: string) => (await db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM league_entries WHERE league_id = $1) + (SELECT count(*) FROM league_runs WHERE league_id = $1)
      + (SELECT count(*) FROM league_results WHERE league_id = $1) + (SELECT count(*) FROM league_tiers WHERE league_id = $1) AS n`, [id])).rows[0]!.n;
  t.ok((await keysOf(wk.id)).length > 0 && Number(await rowsOf(wk.id)) > 0, 'the weekly league has keys and rows before');
  const del = await s.call('DELETE', `/admin/v1/leagues?ids=${wk.id}`);
  t.same(del.body, { deleted: [{ id: wk.id }], issues: [] });
  t.same(await keysOf(wk.id), [], 'no Redis key of the deleted league is left');
  t.equal(Number(await rowsOf(wk.id)), 0, 'no row of its runs, results or tiers is left');
  t.ok((await keysOf(day.id)).length > 0, 'the other league keeps its keys');
  t.equal((await s.call('GET', '/v1/users/a/leagues/wk')).status, 404);
  t.match((await s.call('GET', '/v1/users/a/leagues/day')).body, { key: 'day' });
  const again = await s.call('DELETE', `/admin/v1/leagues?ids=${wk.id}`);
  t.same(again.body, { deleted: [], issues: [{ id: wk.id, severity: 'error', message: 'League not found' }] });
});

t.test('@trophyso/node parses an event response that carries leagues', async (t) => {
  const { TrophyApiClient } = await import('@trophyso/node');
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', tiers: TIERS });
  const trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: { api: `${s.url}/v1`, admin: `${s.url}/admin/v1` } });
  const ev = await trophy.metrics.event('xp', { user: { id: 'sdk' }, value: 4 });
  t.equal(ev.total, 4);
  const raw = await s.event('xp', { user: { id: 'sdk' }, value: 1 });
  t.match(raw.body.leagues.wk, { tier: 'bronze', rank: 1, value: 5 }, 'the response the SDK parsed carries leagues');
});

t.test("live updates push a user's league rank changes on their channel", async (t) => {
  const { openLive, liveUrl } = await import('./helpers/live-client');
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  await league(s, { key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', tiers: TIERS });
  await s.event('xp', { user: { id: 'u1' }, value: 5 });
  const ws = await openLive(liveUrl(s.url), { 'X-API-KEY': s.adminKey });
  t.teardown(() => ws.close());
  ws.send({ subscribe: 'user:u2' });
  await ws.next((m) => m.subscribed === 'user:u2');
  const ev = await s.event('xp', { user: { id: 'u2' }, value: 3 });
  const first = await ws.next((m) => m.type === 'league.rank_changed');
  t.match(first, { league: { key: 'wk', name: 'Weekly' }, ...ev.body.leagues.wk, rank: 2, previousRank: null });
  await s.event('xp', { user: { id: 'u2' }, value: 3 });
  t.match(await ws.next((m) => m.type === 'league.rank_changed' && m.rank === 1), { previousRank: 2, value: 6 });
});
