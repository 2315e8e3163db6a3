import t from 'tap';
import { startServer, TestServer } from './helpers/harness';

async function achievements(s: TestServer, items: Record<string, unknown>[], tenant?: string) {
  const r = await s.call('POST', '/admin/v1/achievements', { body: items.map((a) => ({ status: 'active', ...a })), tenant });
  if (r.status !== 201 || r.body.issues.length) throw new Error(`achievement setup failed: ${JSON.stringify(r.body)}`);
  return Object.fromEntries(r.body.created.map((a: { key: string }) => [a.key, a])) as Record<string, { id: string; key: string }>;
}
const keysOf = (list: { key: string }[]) => list.map((a) => a.key);

t.test('metric achievements', async (t) => {
  const s = await startServer(t);
  const { words } = await s.metrics(['words']);
  await achievements(s, [
    { key: 'w-100', name: '100 words', trigger: 'metric', metricId: words!.id, metricValue: 100, badge: { url: 'https://b/100.png' } },
    { key: 'w-500', name: '500 words', trigger: 'metric', metricId: words!.id, metricValue: 500 },
    { key: 'w-1000', name: '1000 words', trigger: 'metric', metricId: words!.id, metricValue: 1000 },
    { key: 'w-tiny', name: 'A third', trigger: 'metric', metricId: words!.id, metricValue: 0.3 },
    { key: 'w-off', name: 'Inactive', trigger: 'metric', metricId: words!.id, metricValue: 1, status: 'inactive' },
  ]);

  t.test('one at a time, then several in one event', async (t) => {
    const first = await s.event('words', { user: { id: 'writer' }, value: 150 });
    t.same(keysOf(first.body.achievements), ['w-tiny', 'w-100'], 'lowest threshold first');
    t.match(first.body.achievements[1], {
      name: '100 words', trigger: 'metric', metricId: words!.id, metricValue: 100, metricName: 'Metric words',
      badgeUrl: 'https://b/100.png', description: null, achievedAt: new Date(s.clock.now()).toISOString(),
    });
    t.same((await s.event('words', { user: { id: 'writer' }, value: 100 })).body.achievements, [], 'nothing new at 250');
    const jump = await s.event('words', { user: { id: 'writer' }, value: 1000 });
    t.same(keysOf(jump.body.achievements), ['w-500', 'w-1000'], 'one event completes two');
    t.same((await s.event('words', { user: { id: 'writer' }, value: -2000 })).body.achievements, []);
    t.same((await s.event('words', { user: { id: 'writer' }, value: 2000 })).body.achievements, [], 'never twice');
  });

  t.test('decimals reach their threshold exactly', async (t) => {
    await s.event('words', { user: { id: 'dec' }, value: 0.1 });
    await s.event('words', { user: { id: 'dec' }, value: 0.1 });
    t.same(keysOf((await s.event('words', { user: { id: 'dec' }, value: 0.1 })).body.achievements), ['w-tiny']);
  });

  t.test('reads', async (t) => {
    const mine = await s.call('GET', '/v1/users/writer/achievements');
    t.same(keysOf(mine.body), ['w-100', 'w-500', 'w-1000', 'w-tiny'], 'completed only');
    t.match(mine.body[0], { completions: 1, rarity: 50, progress: { current: 1250, target: 100 } });
    const all = await s.call('GET', '/v1/users/dec/achievements?includeIncomplete=true');
    t.same(keysOf(all.body), ['w-100', 'w-500', 'w-1000', 'w-tiny'], 'inactive ones are not offered');
    t.match(all.body[0], { achievedAt: null, progress: { current: 0.3, target: 100 } });
    t.notOk(all.body[3].achievedAt === null);

    const metric = await s.call('GET', '/v1/users/writer/metrics/words');
    t.same(keysOf(metric.body.achievements), ['w-tiny', 'w-100', 'w-500', 'w-1000'], "the metric's achievements, by threshold");
    t.ok(metric.body.achievements.every((a: { achievedAt: string | null }) => a.achievedAt));

    const global = await s.call('GET', '/v1/achievements');
    t.same(keysOf(global.body), ['w-100', 'w-500', 'w-1000', 'w-tiny']);
    t.match(global.body.find((a: { key: string }) => a.key === 'w-tiny'), { completions: 2, rarity: 100 });
    t.match(global.body.find((a: { key: string }) => a.key === 'w-500'), { completions: 1, rarity: 50 });
  });
});

t.test('API and composite achievements, with points', async (t) => {
  const s = await startServer(t);
  const { lessons } = await s.metrics(['lessons']);
  const a = await achievements(s, [
    { key: 'five-lessons', name: 'Five lessons', trigger: 'metric', metricId: lessons!.id, metricValue: 5 },
    { key: 'onboarded', name: 'Onboarded', trigger: 'api', description: 'Finished onboarding' },
  ]);
  const more = await achievements(s, [
    { key: 'starter', name: 'Starter', trigger: 'achievement', prerequisiteIds: [a['five-lessons']!.id, a.onboarded!.id] },
  ]);
  await achievements(s, [{ key: 'master', name: 'Master', trigger: 'achievement', prerequisiteIds: [more.starter!.id] }]);
  const xp = await s.call('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp',
      triggers: [
        { type: 'achievement', achievementId: a.onboarded!.id, points: 50, status: 'active' },
        { type: 'achievement', achievementId: more.starter!.id, points: 100, status: 'active' },
      ],
    }],
  });
  t.equal(xp.status, 201);

  t.test('completing through the API, once', async (t) => {
    const r = await s.call('POST', '/v1/achievements/onboarded/complete', { body: { user: { id: 'u1', name: 'Una' } } });
    t.equal(r.status, 201);
    t.match(r.body, {
      completionId: /^[0-9a-f-]{36}$/,
      achievement: { key: 'onboarded', trigger: 'api', name: 'Onboarded', description: 'Finished onboarding', achievedAt: /Z$/ },
      points: { xp: { total: 50, added: 50, awards: [{ awarded: 50, trigger: { type: 'achievement', achievementId: a.onboarded!.id } }] } },
    });
    t.equal((await s.call('GET', '/v1/users/u1')).body.name, 'Una', 'the user is upserted');
    const again = await s.call('POST', '/v1/achievements/onboarded/complete', { body: { user: { id: 'u1' } } });
    t.equal(again.status, 200);
    t.equal(again.body.completionId, r.body.completionId);
    t.equal(again.body.achievement.achievedAt, r.body.achievement.achievedAt);
    t.same(again.body.points, {}, 'nothing awarded twice');
    await s.app.flusher.drain();
    t.equal((await s.call('GET', '/v1/users/u1/points/xp')).body.total, 50);

    t.equal((await s.call('POST', '/v1/achievements/five-lessons/complete', { body: { user: { id: 'u1' } } })).status, 422, 'not an API achievement');
    t.equal((await s.call('POST', '/v1/achievements/nope/complete', { body: { user: { id: 'u1' } } })).status, 404);
    t.equal((await s.call('POST', '/v1/achievements/onboarded/complete', { body: {} })).status, 422);
  });

  t.test('a composite chain completes with its last prerequisite, in the same event', async (t) => {
    const r = await s.event('lessons', { user: { id: 'u1' }, value: 5 });
    t.same(keysOf(r.body.achievements), ['five-lessons', 'starter', 'master']);
    t.match(r.body.points.xp, { total: 150, added: 100 });
    const other = await s.event('lessons', { user: { id: 'u2' }, value: 5 });
    t.same(keysOf(other.body.achievements), ['five-lessons'], 'without the API one, no composite');
    const done = await s.call('POST', '/v1/achievements/onboarded/complete', { body: { user: { id: 'u2' } } });
    t.same(done.body.points.xp.awards.map((x: { awarded: number }) => x.awarded), [50, 100], 'the API completion also completes the composite');
    const theirs = await s.call('GET', '/v1/users/u2/achievements');
    t.same(keysOf(theirs.body), ['five-lessons', 'onboarded', 'starter', 'master']);
  });

  t.test('composites report progress', async (t) => {
    await s.event('lessons', { user: { id: 'u3' }, value: 5 });
    const list = await s.call('GET', '/v1/users/u3/achievements?includeIncomplete=true');
    t.match(list.body.find((x: { key: string }) => x.key === 'starter'), { achievedAt: null, progress: { current: 1, target: 2 }, achievementIds: [a['five-lessons']!.id, a.onboarded!.id] });
  });
});

t.test('activation completes it for users who already qualify, once', async (t) => {
  const s = await startServer(t);
  await s.attributes([{ key: 'plan', type: 'user' }]);
  const plan = (await s.call('GET', '/admin/v1/attributes')).body[0].id;
  const { steps } = await s.metrics(['steps']);
  for (const [id, value] of [['a', 10_000], ['b', 500], ['c', 20_000]] as const) {
    await s.event('steps', { user: { id, attributes: { plan: id === 'c' ? 'pro' : 'free' } }, value });
  }
  const created = await s.call('POST', '/admin/v1/achievements', {
    body: [
      { key: '10k', name: '10k steps', trigger: 'metric', metricId: steps!.id, metricValue: 10_000 },
      { key: 'pro-10k', name: 'Pro 10k', trigger: 'metric', metricId: steps!.id, metricValue: 10_000, userAttributes: [{ attributeId: plan, attributeValue: 'pro' }] },
    ],
  });
  const [tenK, pro10k] = created.body.created;
  t.equal(tenK.status, 'inactive', 'created inactive');
  await s.call('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'achievement', achievementId: tenK.id, points: 7, status: 'active' }] }],
  });
  await s.app.scheduler.runOnce();
  t.same((await s.call('GET', '/v1/users/a/achievements')).body, [], 'inactive: nothing yet');

  await s.call('PATCH', '/admin/v1/achievements', { body: [{ id: tenK.id, status: 'active' }, { id: pro10k.id, status: 'active' }] });
  await s.app.scheduler.runOnce();
  t.same(keysOf((await s.call('GET', '/v1/users/a/achievements')).body), ['10k']);
  t.same(keysOf((await s.call('GET', '/v1/users/b/achievements')).body), []);
  t.same(keysOf((await s.call('GET', '/v1/users/c/achievements')).body), ['10k', 'pro-10k'], 'user filters apply to the backfill');
  await s.app.flusher.drain();
  t.equal((await s.call('GET', '/v1/users/a/points/xp')).body.total, 7, 'its points trigger fired');

  // An edit triggers another review; nobody is completed or paid twice.
  await s.call('PATCH', '/admin/v1/achievements', { body: [{ id: tenK.id, name: 'Ten thousand steps' }] });
  await s.app.scheduler.runOnce();
  await s.app.flusher.drain();
  t.equal((await s.call('GET', '/v1/users/a/points/xp')).body.total, 7);
  const all = await s.call('GET', '/v1/achievements');
  t.match(all.body[0], { name: 'Ten thousand steps', completions: 2, rarity: 66.67 });

  // The durable record has each completion once.
  const rows = await s.app.ctx.db.query(`SELECT count(*)::int AS n FROM achievement_completions`);
  t.equal(rows.rows[0].n, 3);
});

t.test('achievements admin', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] });
  const r = await s.call('POST', '/admin/v1/achievements', {
    body: [
      { key: 'a', name: 'A', trigger: 'api' },
      { key: 'b', name: 'B', trigger: 'metric', metricId: m!.id, metricValue: 10 },
      { key: 'a', name: 'Dup', trigger: 'api' },
      { key: 'c', name: 'C', trigger: 'metric', metricValue: 10 },
      { key: 'd', name: 'D', trigger: 'achievement', prerequisiteIds: ['00000000-0000-0000-0000-00000000abcd'] },
      { key: 'e', name: 'E', trigger: 'streak' },
      { key: 'f', name: 'F', trigger: 'api', eventAttributes: [] },
    ],
  });
  t.equal(r.status, 201);
  t.same(keysOf(r.body.created), ['a', 'b', 'f']);
  t.same(r.body.issues.map((i: { index: number }) => i.index), [2, 3, 4, 5]);
  const [a, b] = r.body.created;
  t.match(b, { trigger: 'metric', metricId: m!.id, metricValue: 10, status: 'inactive', badge: null, userAttributes: [] });

  const comp = await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'both', name: 'Both', trigger: 'achievement', prerequisiteIds: [a.id, b.id] }] });
  const both = comp.body.created[0];
  t.same(both.prerequisiteIds, [a.id, b.id]);
  const cycle = await s.call('PATCH', '/admin/v1/achievements', { body: [{ id: a.id, trigger: 'achievement', prerequisiteIds: [both.id] }] });
  t.match(cycle.body.issues[0], { id: a.id, message: /cycle/ });
  const self = await s.call('PATCH', '/admin/v1/achievements', { body: [{ id: both.id, prerequisiteIds: [both.id] }] });
  t.match(self.body.issues[0], { message: /own prerequisite/ });

  t.same((await s.call('GET', `/admin/v1/achievements/${both.id}`)).body.key, 'both');
  t.equal((await s.call('GET', '/admin/v1/achievements')).body.length, 4);
  t.same((await s.call('GET', '/admin/v1/achievements', { tenant: 'other' })).body, [], 'tenants do not share achievements');
  await s.call('PATCH', '/admin/v1/achievements', { body: [{ id: a.id, status: 'active' }] });
  t.equal((await s.call('POST', '/v1/achievements/a/complete', { tenant: 'other', body: { user: { id: 'u' } } })).status, 404);
  t.same((await s.call('GET', '/v1/achievements', { tenant: 'other' })).body, []);

  const del = await s.call('DELETE', `/admin/v1/achievements?ids=${a.id}`);
  t.same(del.body.deleted, [{ id: a.id }]);
  t.equal((await s.call('POST', '/v1/achievements/a/complete', { body: { user: { id: 'u' } } })).status, 404);
});

t.test('listing achievements for given user attributes leaves out those such a user cannot earn', async (t) => {
  const s = await startServer(t);
  const { lessons } = await s.metrics(['lessons']);
  await s.attributes([{ key: 'plan', type: 'user' }]);
  const plan = (await s.call('GET', '/admin/v1/attributes')).body.find((a: { key: string }) => a.key === 'plan').id;
  await achievements(s, [
    { key: 'everyone', name: 'Everyone', trigger: 'metric', metricId: lessons!.id, metricValue: 1, status: 'active' },
    { key: 'pro-only', name: 'Pro only', trigger: 'metric', metricId: lessons!.id, metricValue: 1, status: 'active', userAttributes: [{ attributeId: plan, attributeValue: 'pro' }] },
  ]);
  const keys = async (q: string) => (await s.call('GET', `/v1/achievements${q}`)).body.map((a: { key: string }) => a.key);
  t.same(await keys(''), ['everyone', 'pro-only']);
  t.same(await keys('?userAttributes=plan:pro'), ['everyone', 'pro-only']);
  t.same(await keys('?userAttributes=plan:free'), ['everyone']);
  t.equal((await s.call('GET', '/v1/achievements?userAttributes=plan')).status, 422);
});
