import t from 'tap';
import { startServer, TestServer } from './helpers/harness';

// Environments: a tenant's configuration as one document, pulled, planned, pushed, versioned and reverted.

async function tenant(s: TestServer, customerId: string): Promise<void> {
  const r = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId, name: customerId }] });
  if (r.status !== 201) throw new Error(`tenant setup failed: ${JSON.stringify(r.body)}`);
}

/** Every Admin API call must succeed without issues. */
async function ok(s: TestServer, method: string, path: string, body: unknown, tenantId: string): Promise<any> {
  const r = await s.call(method, path, { body, tenant: tenantId });
  if (r.status >= 300 || r.body.issues?.length) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A tenant with one of every kind, made through the Admin API. */
async function configure(s: TestServer, tenantId: string): Promise<void> {
  const attrs = (await ok(s, 'POST', '/admin/v1/attributes', [{ key: 'plan', name: 'Plan', type: 'user' }, { key: 'source', name: 'Source', type: 'event' }], tenantId)).created;
  const plan = attrs.find((a: any) => a.key === 'plan').id;
  const source = attrs.find((a: any) => a.key === 'source').id;
  const metrics = (await ok(s, 'POST', '/admin/v1/metrics', [{ key: 'visits', name: 'Visits' }, { key: 'revenue', name: 'Revenue', unitType: 'currency', units: 'usd' }], tenantId)).created;
  const visits = metrics.find((m: any) => m.key === 'visits').id;
  const first = (await ok(s, 'POST', '/admin/v1/achievements', [
    { key: 'first-visit', name: 'First visit', trigger: 'metric', metricId: visits, metricValue: 1, status: 'active' },
    { key: 'ten-visits', name: 'Ten visits', trigger: 'metric', metricId: visits, metricValue: 10, status: 'active', eventAttributes: [{ attributeId: source, attributeValue: 'web' }] },
  ], tenantId)).created;
  await ok(s, 'POST', '/admin/v1/achievements', [
    { key: 'regular', name: 'Regular', trigger: 'achievement', prerequisiteIds: first.map((a: any) => a.id), status: 'active' },
  ], tenantId);
  const systems = (await ok(s, 'POST', '/admin/v1/points', [
    {
      key: 'xp', name: 'XP', description: 'Experience', maxPoints: 100000,
      levels: [{ key: 'bronze', name: 'Bronze', points: 0 }, { key: 'silver', name: 'Silver', points: 50, badge: { url: 'https://x.test/s.png' } }],
      triggers: [
        { type: 'metric', metricId: visits, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'achievement', achievementId: first[0].id, points: 5, status: 'active' },
      ],
      boosts: [{ name: 'Pro double', start: '2026-01-01', multiplier: 2, userAttributes: [{ attributeId: plan, attributeValue: 'pro' }] }],
    },
    { key: 'coins', name: 'Coins', triggers: [{ type: 'metric', metricId: visits, metricThreshold: 1, points: 1, status: 'active' }] },
  ], tenantId)).created;
  await ok(s, 'POST', '/admin/v1/leaderboards', [
    { key: 'top-xp', name: 'Top XP', rankBy: 'points', pointsSystemId: systems[0].id, status: 'active', start: '2026-03-01', breakdownAttributes: [plan] },
  ], tenantId);
  await ok(s, 'PUT', '/admin/v1/streak', { enabled: true, frequency: 'daily', metrics: [{ metricId: visits, threshold: 1 }] }, tenantId);
  await ok(s, 'PUT', '/admin/v1/retention', { controlRatio: 0, achievementEmails: { enabled: true } }, tenantId);
  await ok(s, 'POST', '/admin/v1/webhooks', [{ url: 'https://hooks.test/laurel', eventTypes: ['achievement.completed'] }], tenantId);
}

const pull = async (s: TestServer, tenantId: string) => {
  const r = await s.call('GET', '/admin/v1/config', { tenant: tenantId });
  if (r.status !== 200) throw new Error(`pull: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
/** A pull's text without its version. */
const text = (doc: any) => JSON.stringify({ ...doc, version: 0 });

/** A response with ids and times masked, to compare two tenants. */
function masked(x: unknown): unknown {
  return JSON.parse(
    JSON.stringify(x)
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>'),
  );
}

t.test('round trip: pull, push to an empty tenant, pull again; events answer alike', async (t) => {
  const s = await startServer(t);
  await tenant(s, 'staging');
  await tenant(s, 'prod');
  await configure(s, 'staging');
  const doc = await pull(s, 'staging');
  t.same(text(await pull(s, 'staging')), text(doc), 'two pulls of an unchanged tenant are byte-identical');
  t.notMatch(JSON.stringify(doc), /[0-9a-f]{8}-[0-9a-f]{4}-/, 'no ids');
  t.notMatch(JSON.stringify(doc), /whsec_|secret/, 'no secrets');
  t.match(doc.resources.leaderboards[0], { pointsSystemKey: 'xp', breakdownAttributeKeys: ['plan'], status: 'active' });
  t.same(doc.resources.achievements.find((a: any) => a.key === 'regular').prerequisiteKeys, ['first-visit', 'ten-visits']);

  const put = await s.call('PUT', '/admin/v1/config', { body: doc, tenant: 'prod' });
  t.equal(put.status, 200);
  t.same(put.body.updates.map((u: any) => u.kind), ['streak', 'retention'], 'settings are updated, never created');
  t.ok(put.body.creations.length >= 10);
  t.same(put.body.deletions, []);
  const again = await pull(s, 'prod');
  t.equal(text(again), text(doc), 'the pushed tenant pulls byte-identical apart from version');
  t.equal(again.version, put.body.version);

  // The same events in both tenants answer the same, apart from ids.
  for (const [i, body] of [
    { user: { id: 'u1', attributes: { plan: 'pro' } }, value: 1, attributes: { source: 'web' } },
    { user: { id: 'u1' }, value: 9, attributes: { source: 'web' } },
    { user: { id: 'u2' }, value: 3 },
  ].entries()) {
    const a = await s.event('visits', body, { tenant: 'staging' });
    const b = await s.event('visits', body, { tenant: 'prod' });
    t.equal(a.status, 201, `event ${i}`);
    t.same(masked(b.body), masked(a.body), `event ${i} answers alike`);
    if (i === 0) t.match(b.body, { achievements: [{ key: 'first-visit' }], points: { xp: { total: 30 }, coins: { total: 1 } }, leaderboards: { 'top-xp': { rank: 1 } } }, 'the pushed configuration awards');
  }
  const lb = (tenantId: string) => s.call('GET', '/v1/leaderboards/top-xp?userAttributes=plan:pro', { tenant: tenantId });
  t.same(masked((await lb('prod')).body), masked((await lb('staging')).body));

  t.equal((await s.call('PUT', '/admin/v1/config', { body: doc, tenant: 'prod' })).body.version, again.version, 'pushing it again changes nothing, no new version');
});

/** A copy of a document changed by `edit`. */
function edited(doc: any, edit: (r: any) => void): any {
  const copy = JSON.parse(JSON.stringify(doc));
  edit(copy.resources);
  return copy;
}
const find = (list: any[], key: string) => list.find((x) => x.key === key);

t.test('plan: each kind lists exactly the changed fields, and applies nothing', async (t) => {
  const s = await startServer(t);
  await configure(s, '');
  const doc = await pull(s, '');
  const cases: [string, (r: any) => void, { kind: string; key: string; changes: { field: string; before?: unknown; after?: unknown }[] }][] = [
    ['metrics', (r) => (find(r.metrics, 'visits').name = 'Site visits'), { kind: 'metrics', key: 'visits', changes: [{ field: 'name', before: 'Visits', after: 'Site visits' }] }],
    ['attributes', (r) => (find(r.attributes, 'plan').name = 'Tier'), { kind: 'attributes', key: 'plan', changes: [{ field: 'name', before: 'Plan', after: 'Tier' }] }],
    ['achievements', (r) => (find(r.achievements, 'ten-visits').metricValue = 12), { kind: 'achievements', key: 'ten-visits', changes: [{ field: 'metricValue', before: 10, after: 12 }] }],
    [
      'pointsSystems',
      (r) => {
        const xp = find(r.pointsSystems, 'xp');
        xp.triggers.find((x: any) => x.type === 'metric').points = 15;
        xp.levels.push({ key: 'gold', name: 'Gold', points: 500 });
      },
      {
        kind: 'pointsSystems', key: 'xp', changes: [
          { field: 'levels[gold]', after: { key: 'gold', name: 'Gold', points: 500, description: '', badge: null } },
          { field: 'triggers[metric:visits].points', before: 10, after: 15 },
        ],
      },
    ],
    ['streak', (r) => (r.streak.maxFreezes = 3), { kind: 'streak', key: 'streak', changes: [{ field: 'maxFreezes', before: 0, after: 3 }] }],
    ['leaderboards', (r) => (r.leaderboards[0].maxParticipants = 50), { kind: 'leaderboards', key: 'top-xp', changes: [{ field: 'maxParticipants', before: 1000, after: 50 }] }],
    ['retention', (r) => (r.retention.controlRatio = 0.25), { kind: 'retention', key: 'retention', changes: [{ field: 'controlRatio', before: 0, after: 0.25 }] }],
    ['webhooks', (r) => (r.webhooks[0].status = 'inactive'), { kind: 'webhooks', key: 'https://hooks.test/laurel', changes: [{ field: 'status', before: 'active', after: 'inactive' }] }],
  ];
  for (const [kind, edit, update] of cases) {
    const r = await s.call('POST', '/admin/v1/config/plan', { body: edited(doc, edit) });
    t.equal(r.status, 200, kind);
    t.same(r.body, { version: doc.version, creations: [], updates: [update], deletions: [] }, `${kind}: only the changed fields`);
  }
  const creation = await s.call('POST', '/admin/v1/config/plan', { body: edited(doc, (r) => r.metrics.push({ key: 'shares', name: 'Shares' })) });
  t.same(creation.body.creations, [{ kind: 'metrics', key: 'shares', after: { key: 'shares', name: 'Shares', unitType: 'number', units: '' } }]);
  t.same((await s.call('POST', '/admin/v1/config/plan', { body: doc })).body, { version: doc.version, creations: [], updates: [], deletions: [] }, 'an unchanged document plans nothing');
  t.equal(JSON.stringify(await pull(s, '')), JSON.stringify(doc), 'nothing was applied (not even a version)');

  // What a plan shows is what PUT does.
  const all = edited(doc, (r) => {
    for (const [, edit] of cases) edit(r);
  });
  const plan = (await s.call('POST', '/admin/v1/config/plan', { body: all })).body;
  const secret = () => s.app.ctx.db.query(`SELECT secret FROM "${s.schema}".webhooks`).then((r) => r.rows[0].secret);
  const before = await secret();
  const put = await s.call('PUT', '/admin/v1/config', { body: all });
  t.same(put.body, { ...plan, version: doc.version + 1 });
  t.equal(put.body.updates.length, cases.length);
  t.equal(await secret(), before, 'the updated webhook keeps its secret');

  const typo = await s.call('POST', '/admin/v1/config/plan', { body: edited(doc, (r) => (r.metrics[0].nmae = 'x')) });
  t.same(typo.body.problems, [{ path: 'resources.metrics[0].nmae', message: 'unknown field' }], 'an unknown field is refused, not ignored');
});

t.test('a push keeps what config changes do: boards go active, achievements backdate, edited triggers are new versions', async (t) => {
  const s = await startServer(t);
  await configure(s, '');
  await s.event('visits', { user: { id: 'early' }, value: 5 });
  const doc = await pull(s, '');
  const next = edited(doc, (r) => {
    r.achievements.push({ key: 'five-visits', name: 'Five visits', trigger: 'metric', metricKey: 'visits', metricValue: 5, status: 'active' });
    r.leaderboards.push({ key: 'later', name: 'Later', rankBy: 'metric', metricKey: 'visits', status: 'active', start: '2026-04-01' });
    find(r.pointsSystems, 'coins').triggers[0].points = 3;
  });
  t.equal((await s.call('PUT', '/admin/v1/config', { body: next })).status, 200);
  const after = await pull(s, '');
  t.equal(find(after.resources.leaderboards, 'later').status, 'scheduled', 'asking for active before the start date schedules it');
  await s.app.scheduler.runOnce();
  const mine = await s.call('GET', '/v1/users/early/achievements');
  t.ok(mine.body.some((a: any) => a.key === 'five-visits'), 'a user who already qualified has the activated achievement');
  const e = await s.event('visits', { user: { id: 'early' }, value: 1 });
  t.equal(e.body.points.coins.awards[0].trigger.points, 3, 'the edited trigger awards its new points');
  const versions = await s.app.ctx.db.query(`SELECT count(DISTINCT trigger->>'points') AS n FROM "${s.schema}".points_trigger_versions`);
  t.equal(Number(versions.rows[0].n) >= 2, true, 'the edit made a new trigger version, the old one kept');
});

t.test('atomicity: two points systems changed together are never seen half-changed', async (t) => {
  const s = await startServer(t);
  const [visits] = Object.values(await s.metrics(['visits']));
  await ok(s, 'POST', '/admin/v1/points', [
    { key: 'a', name: 'A', triggers: [{ type: 'metric', metricId: visits!.id, metricThreshold: 1, points: 1, status: 'active' }] },
    { key: 'b', name: 'B', triggers: [{ type: 'metric', metricId: visits!.id, metricThreshold: 1, points: 1, status: 'active' }] },
  ], '');
  let doc = await pull(s, '');
  const seen = new Set<string>();
  let n = 0;
  for (let round = 2; round <= 6; round++) {
    doc = edited(doc, (r) => {
      for (const sys of r.pointsSystems) sys.triggers[0].points = round;
    });
    let done = false;
    const push = s.call('PUT', '/admin/v1/config', { body: doc }).then((r) => {
      done = true;
      return r;
    });
    // Events keep coming while the push runs, and a few after.
    const load = async (worker: number) => {
      for (let after = 0; !done || after < 2; after += done ? 1 : 0) {
        const r = await s.event('visits', { user: { id: `u${worker}-${n++}` }, value: 1 });
        const pair = `${r.body.points.a.added}/${r.body.points.b.added}`;
        seen.add(pair);
        if (r.body.points.a.added !== r.body.points.b.added) t.fail(`half a configuration: ${pair}`);
      }
    };
    await Promise.all([load(1), load(2), load(3), load(4)]);
    t.equal((await push).status, 200);
  }
  t.ok(seen.has('6/6'), 'the last push is seen whole');
  t.ok(n > 20, `events ran alongside the pushes (${n})`);
});

t.test('refusals: 412 on a stale If-Match, 422 with paths; nothing applied either way', async (t) => {
  const s = await startServer(t);
  await configure(s, '');
  const doc = await pull(s, '');
  const changed = edited(doc, (r) => (find(r.metrics, 'visits').name = 'Changed'));
  const hasVersion = await s.call('PUT', '/admin/v1/config', { body: changed, headers: { 'If-Match': String(doc.version) } });
  t.equal(hasVersion.status, 200, 'a current If-Match applies');
  const now = await pull(s, '');
  t.equal(now.version, doc.version + 1);

  const stale = await s.call('PUT', '/admin/v1/config', { body: doc, headers: { 'If-Match': String(doc.version) } });
  t.equal(stale.status, 412);
  t.match(stale.body.error, /version/);
  t.equal(JSON.stringify(await pull(s, '')), JSON.stringify(now), '412 applied nothing');

  const bad = edited(now, (r) => {
    r.leaderboards[0].pointsSystemKey = 'nope';
    r.metrics[0].unitType = 'bogus';
    find(r.achievements, 'regular').prerequisiteKeys.push('missing');
    r.pointsSystems[0].triggers[0].eventAttributes = [{ attributeKey: 'nope', attributeValue: 'x' }];
  });
  const refused = await s.call('PUT', '/admin/v1/config', { body: bad });
  t.equal(refused.status, 422);
  t.match(refused.body.error, /nothing was applied/);
  t.same(refused.body.problems.map((p: any) => p.path).sort(), [
    'resources.achievements[1].prerequisiteKeys[2]',
    'resources.leaderboards[0].pointsSystemKey',
    'resources.metrics[0].unitType',
    'resources.pointsSystems[0].triggers[0].eventAttributes[0].attributeKey',
  ]);
  t.equal((await s.call('POST', '/admin/v1/config/plan', { body: bad })).status, 422, 'plan refuses it too');

  // A change the Admin API refuses: what an active leaderboard ranks by.
  const forbidden = edited(now, (r) => {
    Object.assign(r.leaderboards[0], { rankBy: 'metric', metricKey: 'visits' });
    delete r.leaderboards[0].pointsSystemKey;
    find(r.metrics, 'revenue').name = 'Would apply alone';
  });
  const f = await s.call('PUT', '/admin/v1/config', { body: forbidden });
  t.equal(f.status, 422);
  t.same(f.body.problems.map((p: any) => p.path), ['resources.leaderboards[0]']);
  t.match(f.body.problems[0].message, /not inactive/);
  t.equal((await s.call('PUT', '/admin/v1/config', { body: { resources: { gadgets: [] } } })).body.problems[0].path, 'resources.gadgets');

  // A resource the Admin API refuses, and what refers to it: each named, no server error.
  const cascade = await s.call('PUT', '/admin/v1/config', {
    body: edited(now, (r) => {
      r.attributes.push({ key: 'bad key', name: 'Bad', type: 'user' });
      find(r.pointsSystems, 'coins').triggers[0].userAttributes = [{ attributeKey: 'bad key', attributeValue: 'x' }];
      r.leaderboards.push({ key: 'by-bad', name: 'By bad', rankBy: 'metric', metricKey: 'visits', breakdownAttributeKeys: ['bad key'] });
    }),
  });
  t.equal(cascade.status, 422);
  t.same(cascade.body.problems.map((p: any) => p.path), ['resources.attributes[2]', 'resources.pointsSystems[0].triggers[0]', 'resources.leaderboards[1]']);
  t.match(cascade.body.problems[0].message, /Key may contain only/);
  t.equal(JSON.stringify(await pull(s, '')), JSON.stringify(now), '422 applied nothing');
});

t.test('prune: what the document lacks stays, unless ?prune=true', async (t) => {
  const s = await startServer(t);
  await configure(s, '');
  const doc = await pull(s, '');
  const lacking = edited(doc, (r) => {
    r.metrics = r.metrics.filter((m: any) => m.key !== 'revenue');
    find(r.pointsSystems, 'xp').levels.pop();
    delete r.webhooks;
  });
  const kept = await s.call('PUT', '/admin/v1/config', { body: lacking });
  t.same(kept.body, { version: doc.version, creations: [], updates: [], deletions: [] }, 'nothing deleted without prune');
  t.equal((await pull(s, '')).resources.metrics.length, 2);

  const plan = await s.call('POST', '/admin/v1/config/plan?prune=true', { body: lacking });
  t.same(plan.body.deletions.map((d: any) => `${d.kind}:${d.key}`), ['metrics:revenue', 'webhooks:https://hooks.test/laurel']);
  t.same(plan.body.updates, [{ kind: 'pointsSystems', key: 'xp', changes: [{ field: 'levels[silver]', before: find(doc.resources.pointsSystems, 'xp').levels[1] }] }]);
  const pruned = await s.call('PUT', '/admin/v1/config?prune=true', { body: lacking });
  t.same(pruned.body, { ...plan.body, version: doc.version + 1 });
  const after = await pull(s, '');
  t.same(after.resources.metrics.map((m: any) => m.key), ['visits']);
  t.same(after.resources.webhooks, []);
  t.equal((await s.call('GET', '/admin/v1/webhooks')).body.length, 0);
});

t.test('history with key ids, and revert', async (t) => {
  const s = await startServer(t);
  await configure(s, '');
  const v0 = await pull(s, '');
  const v1doc = edited(v0, (r) => {
    find(r.metrics, 'visits').name = 'One';
    r.metrics.push({ key: 'shares', name: 'Shares' });
  });
  const first = await s.call('PUT', '/admin/v1/config', { body: v1doc });
  const v1 = await pull(s, '');

  // Each key is named by its id, as the admin keys list gives it (ADMIN_API_KEY's too).
  const k = (await s.call('POST', '/admin/v1/admin-api-keys', { body: { name: 'ci' } })).body;
  const second = await s.call('PUT', '/admin/v1/config', { body: edited(v1, (r) => (find(r.metrics, 'visits').name = 'Two')), key: k.key });
  t.equal(second.status, 200);
  const envKey = (await s.call('GET', '/admin/v1/admin-api-keys')).body.find((x: { source: string }) => x.source === 'environment');

  const history = await s.call('GET', '/admin/v1/config/history');
  t.same(history.body, [
    { version: second.body.version, at: '2026-03-10T12:00:00.000Z', keyId: k.id, changes: 1 },
    { version: first.body.version, at: '2026-03-10T12:00:00.000Z', keyId: envKey.id, changes: 2 },
  ]);
  t.notMatch(JSON.stringify(history.body), k.key.split('.')[1]!, 'never the key');

  const revert = await s.call('POST', '/admin/v1/config/revert', { body: { version: first.body.version } });
  t.equal(revert.status, 200);
  t.same(revert.body.updates, [{ kind: 'metrics', key: 'visits', changes: [{ field: 'name', before: 'Two', after: 'One' }] }]);
  t.equal(revert.body.version, second.body.version + 1, 'a revert is a new version');
  t.equal(text(await pull(s, '')), text(v1), "a pull gives that version's document again");

  const back = await s.call('POST', '/admin/v1/config/revert', { body: { version: revert.body.version } });
  t.same(back.body, { version: revert.body.version, creations: [], updates: [], deletions: [] }, 'reverting to the current version changes nothing');
  t.equal((await s.call('POST', '/admin/v1/config/revert', { body: { version: 1 } })).status, 404, 'a version no document made');
  t.equal((await s.call('GET', '/admin/v1/config/history')).body.length, 3);
});
