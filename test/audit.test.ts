import t from 'tap';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { startServer, TestServer } from './helpers/harness';
import { erasureHash } from '../src/store/privacy';
import { isAuditedWrite } from '../src/api/audited';
import { DEFAULT_TENANT_ID } from '../src/store/migrations';

/** What the suite keeps while it walks the write routes (ids made by earlier steps). */
type State = Record<string, any>;

interface Step {
  /** `METHOD /pattern` as in /openapi.json (`:param` form). */
  op: string;
  /** The request: a concrete path, and a body when the route reads one. */
  req(st: State): { path: string; body?: unknown; tenant?: string };
  action: string;
  resource: string;
  /** Ids the entry must name. */
  ids?(st: State, reply: any): string[];
  /** The path recorded, when not the one requested. */
  path?(st: State): string;
  /** Keep what later steps need. */
  save?(st: State, reply: any): void;
  /** Set up what the step needs outside the Admin API (no entry). */
  before?(s: TestServer, st: State): Promise<void>;
}

const ids = (list: { id: string }[]) => list.map((x) => x.id);
const ERASED_ADA = `sha256:${erasureHash(DEFAULT_TENANT_ID, 'ada')}`;

/**
 * One successful request for every write route of the Admin API, in an order
 * where each finds what it needs. A write route added to /openapi.json without
 * a step here fails the test below: add one.
 */
const STEPS: Step[] = [
  { op: 'POST /admin/v1/metrics', req: () => ({ path: '/admin/v1/metrics', body: [{ key: 'lessons', name: 'Lessons' }, { key: 'spare', name: 'Spare' }] }),
    action: 'create', resource: 'metrics', ids: (_, r) => ids(r.created), save: (st, r) => ([st.lessons, st.spare] = r.created) },
  { op: 'PATCH /admin/v1/metrics', req: (st) => ({ path: '/admin/v1/metrics', body: [{ id: st.spare.id, name: 'Spare metric' }] }),
    action: 'update', resource: 'metrics', ids: (st) => [st.spare.id] },
  { op: 'POST /admin/v1/attributes', req: () => ({ path: '/admin/v1/attributes', body: [{ key: 'plan', name: 'Plan', type: 'user' }] }),
    action: 'create', resource: 'attributes', save: (st, r) => ([st.plan] = r.created) },
  { op: 'PATCH /admin/v1/attributes', req: (st) => ({ path: '/admin/v1/attributes', body: [{ id: st.plan.id, name: 'Plan name' }] }),
    action: 'update', resource: 'attributes', ids: (st) => [st.plan.id] },
  { op: 'POST /admin/v1/achievements', req: (st) => ({ path: '/admin/v1/achievements', body: [{ key: 'first', name: 'First', trigger: 'metric', metricId: st.lessons.id, metricValue: 1, status: 'active' }] }),
    action: 'create', resource: 'achievements', save: (st, r) => ([st.achievement] = r.created) },
  { op: 'PATCH /admin/v1/achievements', req: (st) => ({ path: '/admin/v1/achievements', body: [{ id: st.achievement.id, status: 'inactive' }] }),
    action: 'revoke', resource: 'achievements', ids: (st) => [st.achievement.id] },
  { op: 'POST /admin/v1/points', req: () => ({ path: '/admin/v1/points', body: [{ key: 'xp', name: 'XP' }, { key: 'coins', name: 'Coins' }] }),
    action: 'create', resource: 'points', save: (st, r) => ([st.xp, st.coins] = r.created) },
  { op: 'PATCH /admin/v1/points', req: (st) => ({ path: '/admin/v1/points', body: [{ id: st.xp.id, description: 'Experience' }] }),
    action: 'update', resource: 'points', ids: (st) => [st.xp.id] },
  { op: 'POST /admin/v1/points/:systemId/triggers', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/triggers`, body: [{ type: 'metric', metricId: st.lessons.id, metricThreshold: 1, points: 10, status: 'active' }] }),
    action: 'create', resource: 'points/triggers', ids: (_, r) => ids(r.created), save: (st, r) => ([st.trigger] = r.created) },
  { op: 'PATCH /admin/v1/points/:systemId/triggers', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/triggers`, body: [{ id: st.trigger.id, points: 25 }] }),
    action: 'update', resource: 'points/triggers', ids: (st) => [st.trigger.id] },
  { op: 'POST /admin/v1/points/:systemId/levels', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/levels`, body: [{ key: 'pro', name: 'Pro', points: 100 }] }),
    action: 'create', resource: 'points/levels', save: (st, r) => ([st.level] = r.created) },
  { op: 'PATCH /admin/v1/points/:systemId/levels', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/levels`, body: [{ id: st.level.id, name: 'Professional' }] }),
    action: 'update', resource: 'points/levels', ids: (st) => [st.level.id] },
  { op: 'POST /admin/v1/points/:systemId/boosts', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/boosts`, body: [{ name: 'Weekend', start: '2026-04-04', end: '2026-04-05', multiplier: 1.5 }] }),
    action: 'create', resource: 'points/boosts', save: (st, r) => ([st.boost] = r.created) },
  { op: 'PATCH /admin/v1/points/:systemId/boosts', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/boosts`, body: [{ id: st.boost.id, name: 'Long weekend' }] }),
    action: 'update', resource: 'points/boosts', ids: (st) => [st.boost.id] },
  { op: 'POST /admin/v1/leaderboards', req: (st) => ({ path: '/admin/v1/leaderboards', body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: st.lessons.id, start: '2026-01-01', status: 'active' }] }),
    action: 'create', resource: 'leaderboards', save: (st, r) => ([st.board] = r.created) },
  { op: 'PATCH /admin/v1/leaderboards', req: (st) => ({ path: '/admin/v1/leaderboards', body: [{ id: st.board.id, name: 'Top learners' }] }),
    action: 'update', resource: 'leaderboards', ids: (st) => [st.board.id] },
  { op: 'POST /admin/v1/leagues', req: (st) => ({ path: '/admin/v1/leagues', body: [{ key: 'weekly', name: 'Weekly', rankBy: 'metric', metricId: st.lessons.id, cadence: 'weekly',
      tiers: [{ key: 'bronze', name: 'Bronze', promote: 5, relegate: 0 }, { key: 'silver', name: 'Silver', promote: 0, relegate: 5 }] }] }),
    action: 'create', resource: 'leagues', save: (st, r) => ([st.league] = r.created) },
  { op: 'PATCH /admin/v1/leagues', req: (st) => ({ path: '/admin/v1/leagues', body: [{ id: st.league.id, name: 'Weekly league' }] }),
    action: 'update', resource: 'leagues', ids: (st) => [st.league.id] },
  { op: 'PUT /admin/v1/streak', req: (st) => ({ path: '/admin/v1/streak', body: { enabled: true, frequency: 'daily', metrics: [{ metricId: st.lessons.id, threshold: 1 }], maxFreezes: 2 } }),
    action: 'update', resource: 'streak' },
  { op: 'PUT /admin/v1/retention', req: () => ({ path: '/admin/v1/retention', body: { controlRatio: 0.1 } }), action: 'update', resource: 'retention' },
  { op: 'POST /admin/v1/tenants', req: () => ({ path: '/admin/v1/tenants', body: [{ customerId: 'acme', name: 'Acme' }] }),
    action: 'create', resource: 'tenants', save: (st, r) => ([st.tenant] = r.created) },
  { op: 'PATCH /admin/v1/tenants', req: (st) => ({ path: '/admin/v1/tenants', body: [{ id: st.tenant.id, name: 'Acme Inc' }] }),
    action: 'update', resource: 'tenants', ids: (st) => [st.tenant.id] },
  { op: 'POST /admin/v1/webhooks', req: () => ({ path: '/admin/v1/webhooks', body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: ['achievement.completed'] }] }),
    action: 'create', resource: 'webhooks', save: (st, r) => ([st.hook] = r.created) },
  { op: 'PATCH /admin/v1/webhooks', req: (st) => ({ path: '/admin/v1/webhooks', body: [{ id: st.hook.id, description: 'CRM' }] }),
    action: 'update', resource: 'webhooks', ids: (st) => [st.hook.id] },
  { op: 'POST /admin/v1/webhooks/:id/rotate-secret', req: (st) => ({ path: `/admin/v1/webhooks/${st.hook.id}/rotate-secret` }),
    action: 'rotate', resource: 'webhooks', ids: (st) => [st.hook.id] },
  {
    op: 'POST /admin/v1/webhooks/:id/redeliver', req: (st) => ({ path: `/admin/v1/webhooks/${st.hook.id}/redeliver` }), action: 'redeliver', resource: 'webhooks', ids: (st) => [st.hook.id],
    before: async (s, st) => {
      // A dead delivery (as after an outage), made directly: no Admin API call.
      st.delivery = randomUUID();
      await s.app.ctx.db.query(
        `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, type, payload, status, attempts, next_attempt_at, created)
         VALUES ($1, (SELECT tenant_id FROM webhooks WHERE id = $2), $2, $3, 'achievement.completed', '{}', 'dead', 8, now(), now())`,
        [st.delivery, st.hook.id, randomUUID()],
      );
    },
  },
  { op: 'POST /admin/v1/webhooks/deliveries/:deliveryId/redeliver', req: (st) => ({ path: `/admin/v1/webhooks/deliveries/${st.delivery}/redeliver` }),
    action: 'redeliver', resource: 'webhooks/deliveries', ids: (st) => [st.delivery] },
  { op: 'POST /admin/v1/application-api-keys', req: () => ({ path: '/admin/v1/application-api-keys', body: [{ userId: 'bob' }] }),
    action: 'create', resource: 'application-api-keys', save: (st, r) => ([st.appKey] = r.created) },
  { op: 'PATCH /admin/v1/application-api-keys', req: (st) => ({ path: '/admin/v1/application-api-keys', body: [{ id: st.appKey.id, rateLimit: { perSecond: 5 } }] }),
    action: 'update', resource: 'application-api-keys', ids: (st) => [st.appKey.id] },
  {
    op: 'POST /admin/v1/metrics/events', req: () => ({ path: '/admin/v1/metrics/events', body: [{ key: 'lessons', user: { id: 'ada' }, value: 1 }] }),
    action: 'create', resource: 'metrics/events',
  },
  {
    op: 'DELETE /admin/v1/metrics/events/rejected', req: (st) => ({ path: `/admin/v1/metrics/events/rejected?ids=${st.rejection}` }),
    action: 'delete', resource: 'metrics/events/rejected', ids: (st) => [st.rejection],
    before: async (s, st) => {
      st.rejection = randomUUID();
      await s.app.ctx.db.query(
        `INSERT INTO batch_rejections (id, tenant_id, batch_id, item_index, user_id, item, status, error, at)
         VALUES ($1, (SELECT id FROM tenants WHERE is_default), 'b1', 0, 'kim', '{}', 404, 'gone', now())`,
        [st.rejection],
      );
    },
  },
  // The batch above is applied in the background: these steps need its user.
  { op: 'POST /admin/v1/streaks/freezes', req: () => ({ path: '/admin/v1/streaks/freezes', body: { freezes: [{ userId: 'ada' }] } }), action: 'create', resource: 'streaks/freezes',
    before: (s) => s.app.batches.drain() },
  { op: 'POST /admin/v1/streaks/pauses', req: () => ({ path: '/admin/v1/streaks/pauses', body: { pauses: [{ userId: 'ada', start: '2026-04-01', end: '2026-04-03' }] } }),
    action: 'create', resource: 'streaks/pauses', ids: (_, r) => ids(r.created), save: (st, r) => ([st.pause] = r.created) },
  { op: 'DELETE /admin/v1/streaks/pauses', req: (st) => ({ path: `/admin/v1/streaks/pauses?ids=${st.pause.id}` }), action: 'delete', resource: 'streaks/pauses', ids: (st) => [st.pause.id] },
  { op: 'POST /admin/v1/streaks/restore', req: () => ({ path: '/admin/v1/streaks/restore', body: { users: [{ id: 'ada' }] } }), action: 'restore', resource: 'streaks' },
  {
    op: 'POST /admin/v1/dead-letters/:id/replay', req: (st) => ({ path: `/admin/v1/dead-letters/${st.deadLetter}/replay` }),
    action: 'replay', resource: 'dead-letters', ids: (st) => [st.deadLetter],
    before: async (s, st) => {
      // A record Postgres refuses, then accepts once the constraint is gone (as in dead-letters.test).
      await s.app.ctx.db.query(`ALTER TABLE events ADD CONSTRAINT no_poison CHECK (user_id <> 'poison')`);
      await s.app.flusher.stop();
      await s.event('lessons', { user: { id: 'poison' }, value: 1 });
      await s.drain();
      st.deadLetter = (await s.call('GET', '/admin/v1/dead-letters')).body[0].id;
      await s.app.ctx.db.query('ALTER TABLE events DROP CONSTRAINT no_poison');
    },
  },
  {
    op: 'DELETE /admin/v1/dead-letters', req: (st) => ({ path: `/admin/v1/dead-letters?ids=${st.deadLetter2}` }),
    action: 'delete', resource: 'dead-letters', ids: (st) => [st.deadLetter2],
    before: async (s, st) => {
      await s.app.ctx.db.query(`ALTER TABLE events ADD CONSTRAINT no_poison CHECK (user_id <> 'poison2')`);
      await s.event('lessons', { user: { id: 'poison2' }, value: 2 });
      await s.drain();
      st.deadLetter2 = (await s.call('GET', '/admin/v1/dead-letters')).body[0].id;
    },
  },
  // The user's id is recorded as the erasure's hash, never as itself (the log is never edited).
  { op: 'DELETE /admin/v1/users/:id', req: () => ({ path: '/admin/v1/users/ada' }), action: 'erase', resource: 'users', ids: () => [ERASED_ADA],
    path: () => `/admin/v1/users/${ERASED_ADA.replace(':', '%3A')}` },
  { op: 'POST /admin/v1/admin-api-keys', req: () => ({ path: '/admin/v1/admin-api-keys', body: { name: 'spare' } }),
    action: 'create', resource: 'admin-api-keys', ids: (_, r) => [r.id], save: (st, r) => (st.adminKey = r) },
  { op: 'POST /admin/v1/admin-api-keys/:id/rotate', req: (st) => ({ path: `/admin/v1/admin-api-keys/${st.adminKey.id}/rotate` }),
    action: 'rotate', resource: 'admin-api-keys', ids: (st) => [st.adminKey.id] },
  { op: 'PATCH /admin/v1/admin-api-keys/:id', req: (st) => ({ path: `/admin/v1/admin-api-keys/${st.adminKey.id}`, body: { status: 'inactive' } }),
    action: 'revoke', resource: 'admin-api-keys', ids: (st) => [st.adminKey.id] },
  { op: 'DELETE /admin/v1/admin-api-keys/:id', req: (st) => ({ path: `/admin/v1/admin-api-keys/${st.adminKey.id}` }),
    action: 'delete', resource: 'admin-api-keys', ids: (st) => [st.adminKey.id] },
  { op: 'DELETE /admin/v1/application-api-keys', req: (st) => ({ path: `/admin/v1/application-api-keys?ids=${st.appKey.id}` }),
    action: 'delete', resource: 'application-api-keys', ids: (st) => [st.appKey.id] },
  // A document applied, changed again, and the first version applied again (a revert).
  { op: 'PUT /admin/v1/config', req: () => ({ path: '/admin/v1/config', body: { resources: { metrics: [{ key: 'from-config', name: 'From config' }] } } }),
    action: 'update', resource: 'config', save: (st, r) => (st.configVersion = r.version) },
  { op: 'PUT /admin/v1/config', req: () => ({ path: '/admin/v1/config', body: { resources: { metrics: [{ key: 'from-config', name: 'Renamed by config' }] } } }),
    action: 'update', resource: 'config' },
  { op: 'POST /admin/v1/config/revert', req: (st) => ({ path: '/admin/v1/config/revert', body: { version: st.configVersion } }), action: 'revert', resource: 'config' },
  ...channelSteps(),
  { op: 'PUT /admin/v1/templates/:type', req: () => ({ path: '/admin/v1/templates/recap', body: { email: { subject: 'Your week', html: '<p>{{ user.name }}</p>' }, push: { title: 'Week', body: 'Your week' } } }),
    action: 'update', resource: 'templates', ids: () => ['recap'] },
  { op: 'DELETE /admin/v1/templates/:type', req: () => ({ path: '/admin/v1/templates/recap' }), action: 'delete', resource: 'templates', ids: () => ['recap'] },
  { op: 'DELETE /admin/v1/webhooks', req: (st) => ({ path: `/admin/v1/webhooks?ids=${st.hook.id}` }), action: 'delete', resource: 'webhooks', ids: (st) => [st.hook.id] },
  { op: 'DELETE /admin/v1/leagues', req: (st) => ({ path: `/admin/v1/leagues?ids=${st.league.id}` }), action: 'delete', resource: 'leagues', ids: (st) => [st.league.id] },
  { op: 'DELETE /admin/v1/leaderboards', req: (st) => ({ path: `/admin/v1/leaderboards?ids=${st.board.id}` }), action: 'delete', resource: 'leaderboards', ids: (st) => [st.board.id] },
  { op: 'DELETE /admin/v1/points/:systemId/boosts', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/boosts?ids=${st.boost.id}` }), action: 'delete', resource: 'points/boosts', ids: (st) => [st.boost.id] },
  { op: 'DELETE /admin/v1/points/:systemId/levels', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/levels?ids=${st.level.id}` }), action: 'delete', resource: 'points/levels', ids: (st) => [st.level.id] },
  { op: 'DELETE /admin/v1/points/:systemId/triggers', req: (st) => ({ path: `/admin/v1/points/${st.xp.id}/triggers?ids=${st.trigger.id}` }), action: 'delete', resource: 'points/triggers', ids: (st) => [st.trigger.id] },
  { op: 'DELETE /admin/v1/points', req: (st) => ({ path: `/admin/v1/points?ids=${st.coins.id}` }), action: 'delete', resource: 'points', ids: (st) => [st.coins.id] },
  { op: 'DELETE /admin/v1/achievements', req: (st) => ({ path: `/admin/v1/achievements?ids=${st.achievement.id}` }), action: 'delete', resource: 'achievements', ids: (st) => [st.achievement.id] },
  { op: 'DELETE /admin/v1/attributes', req: (st) => ({ path: `/admin/v1/attributes?ids=${st.plan.id}` }), action: 'delete', resource: 'attributes', ids: (st) => [st.plan.id] },
  { op: 'DELETE /admin/v1/metrics', req: (st) => ({ path: `/admin/v1/metrics?ids=${st.spare.id}` }), action: 'delete', resource: 'metrics', ids: (st) => [st.spare.id] },
  { op: 'DELETE /admin/v1/tenants', req: (st) => ({ path: `/admin/v1/tenants?ids=${st.tenant.id}` }), action: 'delete', resource: 'tenants', ids: (st) => [st.tenant.id] },
];

/** Every write route of the Admin API in /openapi.json, as `METHOD /pattern`. */
/** Each message channel set (with unreachable endpoints), tested on a user who can receive it, and removed. */
function channelSteps(): Step[] {
  const pem = (type: 'ec' | 'rsa') =>
    (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 })).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const settings: Record<string, unknown> = {
    email: { smtpUrl: 'smtp://mailer:pw-audit@127.0.0.1:9', from: { email: 'game@example.com' }, status: 'active' },
    apns: { teamId: 'TEAM123', keyId: 'KEY123', bundleId: 'com.example.app', environment: 'sandbox', signingKey: pem('ec'), endpoint: 'https://127.0.0.1:9' },
    fcm: {
      serviceAccount: { type: 'service_account', project_id: 'proj', client_email: 'svc@proj.iam.gserviceaccount.com', private_key: pem('rsa'), token_uri: 'http://127.0.0.1:9/token' },
      endpoint: 'http://127.0.0.1:9',
    },
    expo: { accessToken: 'expo-audit', endpoint: 'http://127.0.0.1:9' },
  };
  // One user every channel can reach: an address, an APNs token (64 hex digits: APNs when both it and FCM are set), an FCM and an Expo token.
  const receiver = { id: 'receiver', email: 'receiver@example.com', deviceTokens: ['a'.repeat(64), 'fcm-token-1', 'ExponentPushToken[audit]'] };
  return Object.entries(settings).flatMap(([kind, body]): Step[] => [
    { op: `PUT /admin/v1/channels/${kind}`, req: () => ({ path: `/admin/v1/channels/${kind}`, body }), action: 'update', resource: `channels/${kind}` },
    {
      op: `POST /admin/v1/channels/${kind}/test`, req: () => ({ path: `/admin/v1/channels/${kind}/test`, body: { userId: 'receiver' } }), action: 'test', resource: `channels/${kind}`,
      before: async (s) => {
        const r = await s.event('lessons', { user: receiver, value: 1 });
        if (r.status !== 201) throw new Error(JSON.stringify(r.body));
      },
    },
    { op: `DELETE /admin/v1/channels/${kind}`, req: () => ({ path: `/admin/v1/channels/${kind}` }), action: 'delete', resource: `channels/${kind}` },
  ]);
}

async function adminWrites(s: TestServer): Promise<string[]> {
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
    p.startsWith('/admin/')
      ? Object.keys(item).filter((m) => ['post', 'put', 'patch', 'delete'].includes(m)).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`)
        .filter((op) => isAuditedWrite(...(op.split(' ') as [string, string])))
      : [],
  );
}

const count = async (s: TestServer) => Number((await s.app.ctx.db.query('SELECT count(*) AS n FROM audit_log')).rows[0].n);

t.test('every Admin API write leaves exactly one entry, naming actor, action and resource', async (t) => {
  const s = await startServer(t);
  const actor = (await s.call('POST', '/admin/v1/admin-api-keys', { body: { name: 'auditor' } })).body;
  const key = actor.key as string;

  const writes = await adminWrites(s);
  const covered = new Set(STEPS.map((x) => x.op));
  t.same(writes.filter((w) => !covered.has(w)), [], 'every write route in /openapi.json has a step here');
  t.same(STEPS.map((x) => x.op).filter((w) => !writes.includes(w)), [], 'and every step is a described route');

  const st: State = {};
  for (const step of STEPS) {
    await step.before?.(s, st);
    const req = step.req(st);
    const [method] = step.op.split(' ') as [string];
    const before = await count(s);
    const r = await s.call(method, req.path, { key, body: req.body });
    if (r.status >= 300) {
      t.fail(`${step.op}: ${r.status} ${JSON.stringify(r.body)}`);
      continue;
    }
    step.save?.(st, r.body);
    t.equal(await count(s), before + 1, `${step.op}: one entry`);
    const [entry] = (await s.call('GET', '/admin/v1/audit-log?limit=1', { key })).body.entries;
    t.match(entry, {
      keyId: actor.id, keyPrefix: actor.prefix, method, route: step.op.split(' ')[1], path: step.path?.(st) ?? req.path.split('?')[0],
      resource: step.resource, action: step.action, status: r.status,
    }, `${step.op}: ${step.action} ${step.resource} by the auditor key`);
    for (const id of step.ids?.(st, r.body) ?? []) t.ok(entry.resourceIds.includes(id), `${step.op}: names ${id}`);
  }
  const raw = JSON.stringify((await s.app.ctx.db.query('SELECT * FROM audit_log')).rows);
  t.notMatch(raw, /"ada"|\/ada\b/, 'no entry holds the erased user id');

  // Updates hold the changed fields, before and after.
  const log = (await s.call('GET', '/admin/v1/audit-log?resource=metrics&limit=500', { key })).body.entries;
  const renamed = log.find((e: { action: string }) => e.action === 'update');
  t.same(renamed.changes, { [st.spare.id]: { name: { before: 'Spare', after: 'Spare metric' } } });
  const tenants = (await s.call('GET', '/admin/v1/audit-log?resource=tenants', { key })).body.entries;
  t.ok(tenants.every((e: { tenantId: string | null }) => e.tenantId === null), 'tenants are account-level');
  const hooks = (await s.call('GET', '/admin/v1/audit-log?resource=webhooks&limit=500', { key })).body.entries;
  t.same(hooks.find((e: { action: string }) => e.action === 'update').changes[st.hook.id].description, { before: null, after: 'CRM' });
});

t.test('reads and refused requests leave no entry', async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  const app = (await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'u' }] })).body.created[0].key;
  const start = await count(s);

  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    if (!p.startsWith('/admin/') || !('get' in item) || p.includes('{')) continue;
    await s.call('GET', p);
  }
  t.equal(await count(s), start, 'reads of every admin collection: none');

  // POSTs that change nothing: a template rendered for a look, a configuration planned.
  await s.event('m', { user: { id: 'reader', name: 'Reader' }, value: 1 });
  t.equal((await s.call('POST', '/admin/v1/templates/recap/preview', { body: { userId: 'reader' } })).status, 200);
  const plan = await s.call('POST', '/admin/v1/config/plan', { body: { resources: { metrics: [{ key: 'planned', name: 'Planned' }] } } });
  t.equal(plan.status, 200);
  t.equal(plan.body.creations.length, 1, 'the plan would change something');
  t.equal(await count(s), start, 'a preview and a plan: none');

  for (const op of await adminWrites(s)) {
    const [method, pattern] = op.split(' ') as [string, string];
    const path = pattern.replace(/:\w+/g, randomUUID());
    const body = method === 'DELETE' ? undefined : [];
    const statuses = [
      (await s.call(method, path, { key: null, body })).status,
      (await s.call(method, path, { key: app, body })).status,
      (await s.call(method, path, { body })).status,
    ];
    t.ok(statuses.every((x) => x >= 400 && x < 500), `${op}: refused (${statuses.join(', ')})`);
  }
  t.equal(await count(s), start, 'refused writes: none');

  // A batch whose every item is an issue changes nothing: none either.
  t.equal((await s.call('PATCH', '/admin/v1/metrics', { body: [{ id: randomUUID(), name: 'x' }] })).status, 200);
  t.equal(await count(s), start);
});

t.test('the log reads newest first, with filters and a cursor; old months are dropped whole', async (t) => {
  const s = await startServer(t, { AUDIT_RETENTION_DAYS: '30' });
  const env = (await s.call('GET', '/admin/v1/admin-api-keys')).body[0];
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
  for (let i = 0; i < 5; i++) {
    await s.metrics([`m${i}`]);
    s.clock.advance(60_000);
  }
  await s.metrics(['other'], 'acme');
  s.clock.set('2026-05-20T00:00:00Z');
  await s.metrics(['may']);

  const all = (await s.call('GET', '/admin/v1/audit-log')).body.entries;
  t.equal(all.length, 8);
  t.same(all.map((e: { time: string }) => e.time), [...all.map((e: { time: string }) => e.time)].sort().reverse(), 'newest first');
  t.equal(all[0].keyId, env.id, 'ADMIN_API_KEY acts under its listed id');
  t.equal(all[0].keyPrefix, 'admin_test');

  const pages: string[] = [];
  let cursor: string | null = null;
  do {
    const r: any = (await s.call('GET', `/admin/v1/audit-log?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).body;
    pages.push(...r.entries.map((e: { id: string }) => e.id));
    cursor = r.nextCursor;
  } while (cursor);
  t.same(pages, all.map((e: { id: string }) => e.id), 'the cursor walks every entry once');

  const acme = (await s.call('GET', '/admin/v1/tenants')).body[0];
  t.equal((await s.call('GET', `/admin/v1/audit-log?tenant=${acme.id}`)).body.entries.length, 1);
  t.equal((await s.call('GET', '/admin/v1/audit-log?tenant=acme')).body.entries.length, 1, 'or by customerId');
  t.equal((await s.call('GET', '/admin/v1/audit-log?resource=tenants')).body.entries.length, 1);
  t.equal((await s.call('GET', `/admin/v1/audit-log?keyId=${env.id}`)).body.entries.length, 8);
  t.equal((await s.call('GET', `/admin/v1/audit-log?keyId=${randomUUID()}`)).body.entries.length, 0);
  t.equal((await s.call('GET', '/admin/v1/audit-log?since=2026-05-01T00:00:00Z')).body.entries.length, 1);
  t.equal((await s.call('GET', '/admin/v1/audit-log?until=2026-03-10T12:02:00Z')).body.entries.length, 4);
  for (const bad of ['limit=0', 'limit=501', 'since=yesterday', 'cursor=nope', 'tenant=nobody']) {
    t.ok([404, 422].includes((await s.call('GET', `/admin/v1/audit-log?${bad}`)).status), `${bad} is refused`);
  }

  await t.rejects(s.app.ctx.db.query('UPDATE audit_log SET action = $1', ['nothing']), /append-only/, 'entries are never updated');
  await t.rejects(s.app.ctx.db.query('DELETE FROM audit_log'), /append-only/, 'nor deleted one by one');

  // 30 days after the end of March (May 1), March's partition goes whole; May's stays.
  s.clock.set('2026-04-30T00:00:00Z');
  t.same(await s.app.ctx.audit.prune(), [], 'March is not wholly past 30 days yet');
  s.clock.set('2026-05-02T00:00:00Z');
  await s.app.scheduler.runOnce(); // the scheduler applies the retention
  const parts = await s.app.ctx.db.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'audit_log'::regclass`);
  t.same(parts.rows.map((r) => r.relname), ['audit_log_y2026m05'], 'March was dropped as a whole partition');
  t.same((await s.call('GET', '/admin/v1/audit-log')).body.entries.map((e: { time: string }) => e.time), ['2026-05-20T00:00:00.000Z']);
});

t.test("the log's reads of what an update changes count against no rate limit", async (t) => {
  const s = await startServer(t, { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  const made = await s.metrics(['a', 'b', 'c']);
  s.clock.advance(10_000);
  const r = await s.call('PATCH', '/admin/v1/metrics', { body: ['a', 'b', 'c'].map((k) => ({ id: made[k]!.id, name: `Renamed ${k}` })) });
  t.equal(r.status, 200, 'one request, whatever the number of items read for the log');
  const [entry] = (await s.call('GET', '/admin/v1/audit-log?limit=1')).body.entries;
  t.equal(Object.keys(entry.changes).length, 3, 'every item read before and after');
});
