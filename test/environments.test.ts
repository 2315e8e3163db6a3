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
