import t from 'tap';
import { startServer, TestServer } from './helpers/harness';

/** Create one points system (with nested items) and return it. */
async function system(s: TestServer, body: Record<string, unknown>, tenant?: string) {
  const r = await s.call('POST', '/admin/v1/points', { body: [body], tenant });
  if (r.status !== 201 || r.body.issues.length) throw new Error(`points setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0];
}

const xpOf = (r: { body: any }, key = 'xp') => r.body.points[key];

t.test('metric triggers', async (t) => {
  const s = await startServer(t);
  const { lessons } = await s.metrics(['lessons']);
  const xp = await system(s, {
    name: 'XP', key: 'xp',
    triggers: [{ type: 'metric', metricId: lessons!.id, metricThreshold: 10, points: 5, status: 'active' }],
  });

  t.test('one large event crossing several multiples awards each', async (t) => {
    const r = await s.event('lessons', { user: { id: 'big' }, value: 35 });
    t.match(xpOf(r), { id: xp.id, key: 'xp', name: 'XP', total: 15, added: 15, maxPoints: null });
    t.equal(xpOf(r).awards.length, 1);
    t.match(xpOf(r).awards[0], { awarded: 15, total: 15, trigger: { id: xp.triggers[0].id, type: 'metric', metricThreshold: 10, metricName: 'Metric lessons' } });
  });

  t.test('a falling total never deducts; climbing back never pays twice', async (t) => {
    await s.event('lessons', { user: { id: 'yo' }, value: 25 }); // 2 multiples: 10 points
    const down = await s.event('lessons', { user: { id: 'yo' }, value: -20 }); // total 5
    t.same(down.body.points, {}, 'nothing changes on the way down');
    const back = await s.event('lessons', { user: { id: 'yo' }, value: 20 }); // total 25 again
    t.same(back.body.points, {}, 'nothing for multiples already paid');
    const higher = await s.event('lessons', { user: { id: 'yo' }, value: 6 }); // total 31: the 3rd multiple is new
    t.match(xpOf(higher), { total: 15, added: 5 });
  });

  t.test('decimal totals cross thresholds exactly', async (t) => {
    for (let i = 0; i < 99; i++) await s.event('lessons', { user: { id: 'dec' }, value: 0.1 });
    const r = await s.event('lessons', { user: { id: 'dec' }, value: 0.1 }); // 10.0, not 9.99999
    t.match(xpOf(r), { total: 5, added: 5 });
  });

  t.test('inactive triggers do not fire; activation applies to the next event', async (t) => {
    const trig = await s.call('POST', `/admin/v1/points/${xp.id}/triggers`, {
      body: [{ type: 'metric', metricId: lessons!.id, metricThreshold: 1, points: 1 }],
    });
    t.equal(trig.status, 201);
    t.equal(trig.body.created[0].status, 'inactive', 'new triggers start inactive');
    t.same((await s.event('lessons', { user: { id: 'act' }, value: 1 })).body.points, {});
    await s.call('PATCH', `/admin/v1/points/${xp.id}/triggers`, { body: [{ id: trig.body.created[0].id, status: 'active' }] });
    t.match(xpOf(await s.event('lessons', { user: { id: 'act' }, value: 1 })), { added: 1, total: 1 });
  });
});

t.test('user creation, caps, negative totals and blocking', async (t) => {
  const s = await startServer(t);
  const { tasks, spend } = await s.metrics(['tasks', 'spend']);
  await system(s, {
    name: 'XP', key: 'xp', maxPoints: 100,
    triggers: [
      { type: 'user_creation', points: 20, status: 'active' },
      { type: 'metric', metricId: tasks!.id, metricThreshold: 1, points: 30, status: 'active' },
    ],
  });
  await system(s, {
    name: 'Energy', key: 'energy',
    triggers: [
      { type: 'user_creation', points: 3, status: 'active' },
      { type: 'metric', metricId: spend!.id, metricThreshold: 1, points: -1, status: 'active', blockIfOutOfPoints: true },
      { type: 'metric', metricId: tasks!.id, metricThreshold: 1, points: -2, status: 'active' },
    ],
  });

  t.test('user_creation fires once, on the first event', async (t) => {
    const first = await s.event('tasks', { user: { id: 'new' }, value: 1 });
    t.match(xpOf(first), { total: 50, added: 50 });
    t.same(xpOf(first).awards.map((a: { awarded: number }) => a.awarded), [20, 30]);
    const second = await s.event('tasks', { user: { id: 'new' }, value: 1 });
    t.match(xpOf(second), { total: 80, added: 30 });
  });

  t.test('user_creation fires for users created through the users API too', async (t) => {
    await s.call('POST', '/v1/users', { body: { id: 'signup' } });
    await s.app.flusher.drain();
    t.match((await s.call('GET', '/v1/users/signup/points/xp')).body, { total: 20, awards: [{ awarded: 20 }] });
  });

  t.test('maxPoints caps the total and the award says what was added', async (t) => {
    await s.event('tasks', { user: { id: 'cap' }, value: 2 }); // 20 + 60 = 80
    const r = await s.event('tasks', { user: { id: 'cap' }, value: 1 }); // +30 capped at 100
    t.match(xpOf(r), { total: 100, added: 20, awards: [{ awarded: 20, total: 100 }] });
    const more = await s.event('tasks', { user: { id: 'cap' }, value: 1 });
    t.notOk('xp' in more.body.points, 'a full system is not reported as changed');
  });

  t.test('points may go below zero', async (t) => {
    const r = await s.event('tasks', { user: { id: 'neg' }, value: 3 }); // energy 3 - 6
    t.match(xpOf(r, 'energy'), { total: -3, added: -3 });
  });

  t.test('blockIfOutOfPoints refuses the event and applies nothing', async (t) => {
    const ok = await s.event('spend', { user: { id: 'spender' }, value: 3 }); // energy 3 - 3 = 0
    t.equal(ok.status, 201);
    t.match(xpOf(ok, 'energy'), { total: 0 });
    const refused = await s.event('spend', { user: { id: 'spender', name: 'Changed' }, value: 1 });
    t.equal(refused.status, 422);
    t.match(refused.body.error, /energy/);
    const u = await s.call('GET', '/v1/users/spender/metrics/spend');
    t.equal(u.body.current, 3, 'the metric total did not move');
    t.equal((await s.call('GET', '/v1/users/spender')).body.name, null, 'the profile did not move');
    await s.app.flusher.drain();
    t.equal((await s.call('GET', '/v1/users/spender/points/energy')).body.total, 0);
  });
});

t.test('boosts', async (t) => {
  const s = await startServer(t);
  await s.attributes([{ key: 'plan', type: 'user' }]);
  const attrs = (await s.call('GET', '/admin/v1/attributes')).body;
  const plan = attrs[0].id;
  const { m } = await s.metrics(['m']);
  const trigger = (points: number) => ({ type: 'metric', metricId: m!.id, metricThreshold: 1, points, status: 'active' });

  t.test('each rounding', async (t) => {
    for (const [rounding, expect] of [['down', 3], ['up', 4], ['nearest', 4]] as const) {
      await system(s, { name: rounding, key: `r-${rounding}`, triggers: [trigger(3)], boosts: [{ name: 'x1.25', start: '2026-01-01', multiplier: 1.25, rounding }] });
      const r = await s.event('m', { user: { id: `round-${rounding}` }, value: 1 });
      t.equal(xpOf(r, `r-${rounding}`).added, expect, `${rounding}: 3 x 1.25 = 3.75`);
    }
  });

  t.test('stacking multiplies; cohorts and single users; only positive awards; dates', async (t) => {
    const sys = await system(s, {
      name: 'Stack', key: 'stack', triggers: [trigger(10)],
      boosts: [
        { name: 'Global x2', start: '2026-03-01', end: '2026-03-31', multiplier: 2 },
        { name: 'Pro x1.5', start: '2026-03-01', multiplier: 1.5, userAttributes: [{ attributeId: plan, attributeValue: 'pro' }] },
        { name: 'Later x3', start: '2026-04-01', multiplier: 3 },
      ],
    });
    await s.call('POST', `/admin/v1/points/${sys.id}/boosts`, { body: [{ name: 'VIP x3', userId: 'vip', start: '2026-03-01', multiplier: 3 }] });

    const plain = await s.event('m', { user: { id: 'plain' }, value: 1 });
    t.equal(xpOf(plain, 'stack').added, 20, 'global only');
    t.same(xpOf(plain, 'stack').awards[0].boosts.map((b: { name: string }) => b.name), ['Global x2']);
    const pro = await s.event('m', { user: { id: 'pro', attributes: { plan: 'pro' } }, value: 1 });
    t.equal(xpOf(pro, 'stack').added, 30, 'global x cohort');
    const vip = await s.event('m', { user: { id: 'vip' }, value: 1 });
    t.equal(xpOf(vip, 'stack').added, 60, 'global x user');

    const boosts = await s.call('GET', '/v1/users/vip/points/stack/boosts');
    t.same(boosts.body.map((b: { name: string }) => b.name).sort(), ['Global x2', 'VIP x3']);
    t.same((await s.call('GET', '/v1/points/stack/boosts')).body.map((b: { name: string; status: string }) => `${b.name}:${b.status}`), [
      'Global x2:active', 'Pro x1.5:active', 'Later x3:scheduled',
    ]);

    // In April the March boost is over and the April one applies, by the user's own calendar:
    // 2026-03-31 23:30 UTC is already April 1st in Berlin.
    s.clock.set('2026-03-31T23:30:00Z');
    const berlin = await s.event('m', { user: { id: 'plain', tz: 'Europe/Berlin' }, value: 1 });
    t.equal(xpOf(berlin, 'stack').added, 30, 'x3 from April 1st local');
    const utc = await s.event('m', { user: { id: 'utc-user' }, value: 1 });
    t.equal(xpOf(utc, 'stack').added, 20, 'still March 31st in UTC: x2');
    t.equal((await s.call('GET', '/v1/points/stack/boosts?includeFinished=true')).body.length, 3);
  });

  t.test('boosts never multiply deductions', async (t) => {
    await system(s, { name: 'Drain', key: 'drain', triggers: [trigger(-4)], boosts: [{ name: 'x2', start: '2026-01-01', multiplier: 2 }] });
    t.equal(xpOf(await s.event('m', { user: { id: 'drained' }, value: 1 }), 'drain').added, -4);
  });

  t.test('bad boosts are refused', async (t) => {
    const sys = (await s.call('GET', '/admin/v1/points')).body[0];
    const r = await s.call('POST', `/admin/v1/points/${sys.id}/boosts`, {
      body: [
        { name: 'one', start: '2026-01-01', multiplier: 1 },
        { name: 'huge', start: '2026-01-01', multiplier: 100 },
        { name: 'backwards', start: '2026-02-01', end: '2026-01-01', multiplier: 2 },
        { name: 'both', start: '2026-01-01', multiplier: 2, userId: 'u', userAttributes: [{ attributeId: plan, attributeValue: 'x' }] },
        { name: 'fine', start: '2026-01-01', multiplier: 0.5 },
      ],
    });
    t.equal(r.status, 201);
    t.same(r.body.issues.map((i: { index: number }) => i.index), [0, 1, 2, 3]);
    t.equal(r.body.created[0].name, 'fine');
  });
});

t.test('levels and attribute filters', async (t) => {
  const s = await startServer(t);
  const attrs = await s.attributes([{ key: 'plan', type: 'user' }, { key: 'source', type: 'event' }]);
  const id = (k: string) => attrs[k]!.id;
  const { m } = await s.metrics(['m']);
  await system(s, {
    name: 'XP', key: 'xp',
    levels: [
      { name: 'Bronze', key: 'bronze', points: 0 },
      { name: 'Silver', key: 'silver', points: 10 },
      { name: 'Gold', key: 'gold', points: 20 },
    ],
    triggers: [
      { type: 'metric', metricId: m!.id, metricThreshold: 1, points: 10, status: 'active' },
      { type: 'metric', metricId: m!.id, metricThreshold: 1, points: 100, status: 'active',
        userAttributes: [{ attributeId: id('plan'), attributeValue: 'pro' }], eventAttributes: [{ attributeId: id('source'), attributeValue: 'ios' }] },
    ],
  });
  const down = await system(s, { name: 'Down', key: 'down', levels: [{ name: 'Up there', key: 'up', points: 5 }] });
  await s.call('POST', `/admin/v1/points/${down.id}/triggers`, {
    body: [
      { type: 'metric', metricId: m!.id, metricThreshold: 1, points: 5, status: 'active', eventAttributes: [{ attributeId: id('source'), attributeValue: 'web' }] },
      { type: 'metric', metricId: m!.id, metricThreshold: 1, points: -5, status: 'active', eventAttributes: [{ attributeId: id('source'), attributeValue: 'ios' }] },
    ],
  });

  const first = await s.event('m', { user: { id: 'u' }, value: 1 });
  t.match(xpOf(first).level, { key: 'silver', name: 'Silver', points: 10 }, 'level reported when it changes');
  const second = await s.event('m', { user: { id: 'u' }, value: 1 });
  t.match(xpOf(second).level, { key: 'gold' });
  const third = await s.event('m', { user: { id: 'u' }, value: 1 });
  t.notOk('level' in xpOf(third), 'no level when it stays the same');

  const upThere = await s.event('m', { user: { id: 'w' }, value: 1, attributes: { source: 'web' } });
  t.match(xpOf(upThere, 'down'), { total: 5, level: { key: 'up' } });
  const fell = await s.event('m', { user: { id: 'w' }, value: 1, attributes: { source: 'ios' } });
  t.match(xpOf(fell, 'down'), { total: 0, added: -5, level: null }, 'level down to none is reported as null');
  t.notOk(xpOf(fell).awards.some((a: { awarded: number }) => a.awarded === 100), 'the pro-only trigger needs the user attribute too');

  const pro = await s.event('m', { user: { id: 'p', attributes: { plan: 'pro' } }, value: 1, attributes: { source: 'ios' } });
  t.equal(xpOf(pro).added, 110, 'both filters match: both triggers fire');

  t.test('reads', async (t) => {
    await s.app.flusher.drain();
    const user = await s.call('GET', '/v1/users/u/points/xp?awards=2');
    t.match(user.body, { key: 'xp', total: 30, level: { key: 'gold' } });
    t.equal(user.body.awards.length, 2);
    t.match(user.body.awards[0], { awarded: 10, total: 30, trigger: { type: 'metric' } }, 'newest first');
    t.equal(user.body.awards[0].id, xpOf(third).awards[0].id, 'the same award id as in the event response');
    t.equal((await s.call('GET', '/v1/users/u/points/xp?awards=0')).status, 422);
    t.equal((await s.call('GET', '/v1/users/u/points/xp?awards=101')).status, 422);
    t.equal((await s.call('GET', '/v1/users/u/points/nope')).status, 404);

    const summary = await s.call('GET', '/v1/users/u/points/xp/event-summary?aggregation=daily&startDate=2026-03-09&endDate=2026-03-10');
    t.same(summary.body, [{ date: '2026-03-09', total: 0, change: 0 }, { date: '2026-03-10', total: 30, change: 30 }]);

    const sys = await s.call('GET', '/v1/points/xp');
    t.match(sys.body, { key: 'xp', name: 'XP', maxPoints: null });
    t.equal(sys.body.triggers.length, 2);
    t.match(sys.body.triggers[1], { userAttributes: [{ key: 'plan', value: 'pro' }], eventAttributes: [{ key: 'source', value: 'ios' }] });
    t.same((await s.call('GET', '/v1/points/xp/levels')).body.map((l: { key: string }) => l.key), ['bronze', 'silver', 'gold']);
    // XP: u 30, w 20 (two events at 10), p 110: all gold.
    t.same((await s.call('GET', '/v1/points/xp/level-summary')).body.map((x: { level: { key: string }; users: number }) => [x.level.key, x.users]), [
      ['bronze', 0], ['silver', 0], ['gold', 3],
    ]);
    const hist = await s.call('GET', '/v1/points/xp/summary');
    t.same(hist.body.slice(0, 3), [{ from: 0, to: 0, users: 0 }, { from: 1, to: 20, users: 1 }, { from: 21, to: 40, users: 1 }]);
    t.equal(hist.body.length, 11);
    t.equal(hist.body.reduce((n: number, b: { users: number }) => n + b.users, 0), 3);
    const proOnly = await s.call('GET', '/v1/points/xp/summary?userAttributes=plan:pro');
    t.equal(proOnly.body.reduce((n: number, b: { users: number }) => n + b.users, 0), 1);
    t.equal((await s.call('GET', '/v1/points/xp/summary?userAttributes=nonsense')).status, 422);
    t.equal((await s.call('GET', '/v1/points/nope')).status, 404);
    // Last: a new user would count in the summaries above.
    await s.call('POST', '/v1/users', { body: { id: 'idle' } });
    t.match((await s.call('GET', '/v1/users/idle/points/xp')).body, { key: 'xp', total: 0, awards: [] }, 'a user never awarded has no awards');
  });
});

t.test('points admin', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] });

  const bad = await s.call('POST', '/admin/v1/points', {
    body: [
      { name: 'XP', key: 'xp', levels: [{ name: 'L', key: 'l', points: 0 }] },
      { name: 'Dup', key: 'xp' },
      { name: 'Nested bad', key: 'nb', triggers: [{ type: 'metric', points: 5 }] },
      { name: 'Zero', key: 'zero', triggers: [{ type: 'user_creation', points: 0 }] },
      { name: 'Bad key', key: 'b a d' },
    ],
  });
  t.equal(bad.status, 201);
  t.same(bad.body.created.map((x: { key: string }) => x.key), ['xp']);
  t.same(bad.body.issues.map((i: { index: number }) => i.index), [1, 2, 3, 4]);
  t.match(bad.body.issues[1].message, /triggers\[0\]/);
  t.equal((await s.call('GET', '/admin/v1/points')).body.length, 1, 'a refused item leaves nothing behind, nested parts included');
  const xp = bad.body.created[0];
  t.same(xp.levels.map((l: { key: string }) => l.key), ['l']);

  const sysPatch = await s.call('PATCH', '/admin/v1/points', { body: [{ id: xp.id, name: 'Experience', maxPoints: 500, badge: { url: 'https://x/b.png' } }] });
  t.match(sysPatch.body.updated[0], { name: 'Experience', maxPoints: 500, badge: { url: 'https://x/b.png' } });
  t.equal((await s.call('GET', `/admin/v1/points/${xp.id}`)).body.name, 'Experience');

  const trig = await s.call('POST', `/admin/v1/points/${xp.id}/triggers`, {
    body: [
      { type: 'metric', metricId: m!.id, metricThreshold: 2, points: 5 },
      { type: 'streak', streakLength: 7, points: 50 },
      { type: 'time', timeUnit: 'days', timeInterval: 1, points: 1 },
      { type: 'metric', metricId: '00000000-0000-0000-0000-00000000abcd', metricThreshold: 2, points: 5 },
      { type: 'time', points: 1 },
      { type: 'streak', streakLength: 7, points: 1, eventAttributes: [] },
    ],
  });
  t.equal(trig.status, 201);
  t.same(trig.body.created.map((x: { type: string }) => x.type), ['metric', 'streak', 'time', 'streak']);
  t.same(trig.body.issues.map((i: { index: number }) => i.index), [3, 4]);
  const [mt] = trig.body.created;
  t.same((await s.call('GET', `/admin/v1/points/${xp.id}/triggers/${mt.id}`)).body, mt);
  const patched = await s.call('PATCH', `/admin/v1/points/${xp.id}/triggers`, { body: [{ id: mt.id, type: 'user_creation' }, { id: '00000000-0000-0000-0000-00000000abcd', points: 2 }] });
  t.match(patched.body.updated[0], { type: 'user_creation', points: 5 });
  t.notOk('metricId' in patched.body.updated[0]);
  t.equal(patched.body.issues[0].id, '00000000-0000-0000-0000-00000000abcd');

  const lv = await s.call('POST', `/admin/v1/points/${xp.id}/levels`, { body: [{ name: 'Dup', key: 'l', points: 5 }, { name: 'Two', key: 'two', points: 50 }] });
  t.same(lv.body.issues.map((i: { index: number }) => i.index), [0]);
  const up = await s.call('PATCH', `/admin/v1/points/${xp.id}/levels`, { body: [{ id: lv.body.created[0].id, points: 60 }] });
  t.equal(up.body.updated[0].points, 60);
  t.equal((await s.call('GET', `/admin/v1/points/${xp.id}/levels`)).body.length, 2);

  t.equal((await s.call('GET', '/admin/v1/points/00000000-0000-0000-0000-00000000abcd/triggers')).status, 404);
  t.equal((await s.call('GET', `/admin/v1/points/${xp.id}/triggers`, { tenant: 'other' })).status, 404, 'another tenant cannot see the system');
  t.same((await s.call('GET', '/admin/v1/points', { tenant: 'other' })).body, []);
  t.equal((await s.call('GET', '/v1/points/xp', { tenant: 'other' })).status, 404);

  const del = await s.call('DELETE', `/admin/v1/points?ids=${xp.id}`);
  t.same(del.body.deleted, [{ id: xp.id }]);
  t.equal((await s.call('GET', `/admin/v1/points/${xp.id}/levels`)).status, 404);
  t.same((await s.event('m', { user: { id: 'u' }, value: 5 })).body.points, {}, 'a deleted system awards nothing');
});

// Event values go up to 1e12, so one award can be far beyond 2^31, and a
// total keeps growing: Postgres must hold them, and reads give numbers back.
t.test('awards and totals beyond 2^31 are flushed and read back', async (t) => {
  const s = await startServer(t);
  const { coins } = await s.metrics(['coins']);
  await system(s, { name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: coins!.id, metricThreshold: 1, points: 1, status: 'active' }] });
  const first = await s.event('coins', { user: { id: 'whale' }, value: 3e9 });
  t.match(xpOf(first), { total: 3e9, added: 3e9 });
  const second = await s.event('coins', { user: { id: 'whale' }, value: 1e12 });
  t.match(xpOf(second), { total: 1e12 + 3e9, added: 1e12 });
  await s.drain();
  t.equal((await s.app.flusher.lag()).entries, 0, 'every record reached Postgres');

  const read = await s.call('GET', '/v1/users/whale/points/xp?awards=2');
  t.equal(read.status, 200);
  t.same(read.body.awards.map((a: { awarded: unknown; total: unknown }) => [a.awarded, a.total]), [[1e12, 1e12 + 3e9], [3e9, 3e9]], 'newest first, as numbers');
  const summary = await s.call('GET', '/v1/users/whale/points/xp/event-summary?aggregation=daily&startDate=2026-03-10&endDate=2026-03-10');
  t.same(summary.body, [{ date: '2026-03-10', total: 1e12 + 3e9, change: 1e12 + 3e9 }]);
  const hist = await s.call('GET', '/v1/points/xp/summary');
  t.equal(hist.body.reduce((n: number, b: { users: number }) => n + b.users, 0), 1);
  t.ok(hist.body.every((b: { from: unknown; to: unknown }) => typeof b.from === 'number' && typeof b.to === 'number'));
});

t.test('an award keeps showing the trigger that paid it after the trigger is edited, then deleted', async (t) => {
  const s = await startServer(t);
  const { lessons } = await s.metrics(['lessons']);
  const sys = await system(s, { key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: lessons!.id, metricThreshold: 1, points: 10, status: 'active' }] });
  const triggerId = sys.triggers[0].id;
  await s.event('lessons', { user: { id: 'u' }, value: 1 });
  const before = (await s.call('GET', '/v1/users/u/points/xp')).body.awards[0].trigger;
  t.match(before, { id: triggerId, type: 'metric', points: 10, status: 'active', metricId: lessons!.id, metricName: 'Metric lessons', metricThreshold: 1, userAttributes: [] });

  s.clock.advance(60_000);
  const edited = await s.call('PATCH', `/admin/v1/points/${sys.id}/triggers`, { body: [{ id: triggerId, points: 25 }] });
  t.equal(edited.status, 200);
  await s.event('lessons', { user: { id: 'u' }, value: 1 });
  const [second, first] = (await s.call('GET', '/v1/users/u/points/xp')).body.awards;
  t.match(second, { awarded: 25, trigger: { id: triggerId, points: 25 } }, 'the new award shows the edited trigger');
  t.same(first.trigger, before, 'the first award still shows the trigger as it paid');

  t.equal((await s.call('DELETE', `/admin/v1/points/${sys.id}/triggers?ids=${triggerId}`)).status, 200);
  const after = (await s.call('GET', '/v1/users/u/points/xp')).body.awards;
  t.same(after.map((a: { trigger: unknown }) => a.trigger), [second.trigger, before], 'deleted: both awards keep their full trigger');
});
