import t from 'tap';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { redeliver, sharedRedis, startServer, TestServer } from './helpers/harness';
import { until } from './helpers/process';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** A real receiver on a free port: records every request and answers with `answer()` (a status, or 'hang'). */
async function receiver(t: { teardown(fn: () => unknown): void }, answer: () => number | 'hang' = () => 200) {
  const got: Received[] = [];
  const hung: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      got.push({ headers: req.headers, body, json: JSON.parse(body) });
      const a = answer();
      if (a === 'hang') hung.push(res);
      else res.writeHead(a).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const of = (type: string) => got.filter((r) => r.json.type === type);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, of, hung };
}

/** Servers here send only when told (runOnce), so every test sees each attempt it causes. */
const start = (t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}) => startServer(t, { WEBHOOK_POLL_MS: '3600000', ...env });

async function endpoint(s: TestServer, url: string, eventTypes: string[], tenant?: string): Promise<{ id: string; secret: string }> {
  const r = await s.call('POST', '/admin/v1/webhooks', { body: [{ url, eventTypes }], tenant });
  if (r.status !== 201) throw new Error(`webhook setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0];
}

/** Flush the change streams into Postgres (queuing deliveries), then send what is due. */
async function deliver(s: TestServer) {
  await s.drain();
  await s.app.webhooks.runOnce();
}

const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('base64');

/** What a receiver checks: Trophy's signature of the body, and Laurel's of id, timestamp and body. */
function verified(r: Received, secret: string): boolean {
  const id = r.headers['x-laurel-event-id'] as string;
  const ts = r.headers['x-laurel-timestamp'] as string;
  return r.headers['x-trophy-signature'] === hmac(secret, r.body) && r.headers['x-laurel-signature'] === hmac(secret, `${id}.${ts}.${r.body}`);
}

const ALL = [
  'achievement.completed', 'streak.started', 'streak.extended', 'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned',
  'points.changed', 'points.level_changed', 'points.boost_started', 'points.boost_finished',
  'leaderboard.started', 'leaderboard.changed', 'leaderboard.rank_changed', 'leaderboard.finished',
];

t.test('an event is reported to the receiver, signed, in Trophy shapes', async (t) => {
  const s = await start(t);
  const rx = await receiver(t);
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp', levels: [{ name: 'Silver', key: 'silver', points: 20 }],
      triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 10, status: 'active' }],
    }],
  });
  await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'first', name: 'First', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } });
  await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, status: 'active', start: '2026-01-01' }] });
  const hook = await endpoint(s, rx.url, ALL);
  t.match(hook.secret, /^whsec_/);

  const ev = await s.event('m', { user: { id: 'u1', name: 'Ann', email: 'ann@example.com', tz: 'Europe/London' }, value: 2 });
  t.equal(ev.status, 201);
  await deliver(s);

  t.same(rx.got.map((r) => r.json.type).sort(), ['achievement.completed', 'leaderboard.rank_changed', 'points.changed', 'points.level_changed', 'streak.started']);
  for (const r of rx.got) {
    t.ok(verified(r, hook.secret), `${r.json.type} is signed with the endpoint's secret`);
    t.equal(r.headers['content-type'], 'application/json');
    t.equal(r.headers['x-laurel-timestamp'], String(Math.floor(s.clock.now() / 1000)));
    t.match(r.json.user, { id: 'u1', name: 'Ann', email: 'ann@example.com', tz: 'Europe/London', subscribeToEmails: true, attributes: {}, created: '2026-03-10T12:00:00.000Z' });
  }
  t.equal(new Set(rx.got.map((r) => r.headers['x-laurel-event-id'])).size, 5, 'each event has its own id');

  const [ach] = rx.of('achievement.completed');
  t.match(ach!.json.achievement, { key: 'first', name: 'First', trigger: 'metric', achievedAt: '2026-03-10T12:00:00.000Z' });
  const [pts] = rx.of('points.changed');
  t.match(pts!.json.points, { key: 'xp', name: 'XP', total: 20, added: 20, level: { key: 'silver', points: 20 } });
  t.match(pts!.json.points.awards, [{ awarded: 20, total: 20, trigger: { type: 'metric', points: 10, metricThreshold: 1 } }]);
  t.same(pts!.json.points.awards[0].id, ev.body.points.xp.awards[0].id, 'award ids match the event response');
  const [lvl] = rx.of('points.level_changed');
  t.match(lvl!.json, { points: { key: 'xp', total: 20 }, previousLevel: null, newLevel: { key: 'silver', name: 'Silver', points: 20 } });
  const [stk] = rx.of('streak.started');
  t.match(stk!.json.streak, { length: 1, frequency: 'daily', started: '2026-03-10', periodStart: '2026-03-10', periodEnd: '2026-03-10', expires: '2026-03-11' });
  const [rank] = rx.of('leaderboard.rank_changed');
  t.match(rank!.json.leaderboard, { key: 'top', rankBy: 'metric', rank: 1, value: 2, previousRank: null, previousValue: null });

  // A second user passes the first: their rank changes; the board's snapshot goes out once its window closes.
  await s.event('m', { user: { id: 'u2', name: 'Bo' }, value: 5 });
  await deliver(s);
  t.match(rx.of('leaderboard.rank_changed').map((r) => r.json.leaderboard), [{ rank: 1 }, { rank: 1, value: 5, previousRank: null }]);
  t.equal(rx.of('leaderboard.changed').length, 0, 'leaderboard.changed waits for the end of its 15 minutes');
  s.clock.advance(15 * 60_000);
  await s.app.webhooks.runOnce();
  t.same(rx.of('leaderboard.changed').map((r) => r.json.leaderboard.rankings), [[
    { userId: 'u2', userName: 'Bo', rank: 1, value: 5 },
    { userId: 'u1', userName: 'Ann', rank: 2, value: 2 },
  ]], 'one snapshot for the window, with the latest rankings');

  const list = await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries?limit=100`);
  t.equal(list.body.length, rx.got.length);
  t.ok(list.body.every((d: { status: string; attempts: number }) => d.status === 'delivered' && d.attempts === 1));
});

t.test('failures are retried with backoff, dead-lettered, and can be redelivered', async (t) => {
  const s = await start(t, { WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_RETRY_BASE_MS: '60000' });
  let status = 500;
  const rx = await receiver(t, () => status);
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'first', name: 'First', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
  const hook = await endpoint(s, rx.url, ['achievement.completed']);
  t.equal((await s.event('m', { user: { id: 'u1' }, value: 1 })).status, 201, 'a failing receiver does not touch the event');
  await deliver(s);
  t.equal(rx.got.length, 1);

  const pending = async () => (await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries?status=pending`)).body;
  let [d] = await pending();
  t.match(d, { type: 'achievement.completed', status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
  const wait1 = Date.parse(d.nextAttemptAt) - s.clock.now();
  t.ok(wait1 >= 60_000 && wait1 <= 72_000, `first retry after about the base delay (${wait1} ms)`);

  await s.app.webhooks.runOnce();
  t.equal(rx.got.length, 1, 'not retried before it is due');
  s.clock.set(Date.parse(d.nextAttemptAt));
  await s.app.webhooks.runOnce();
  t.equal(rx.got.length, 2);
  [d] = await pending();
  const wait2 = Date.parse(d.nextAttemptAt) - s.clock.now();
  t.ok(wait2 >= 120_000 && wait2 <= 144_000, `the next waits twice as long (${wait2} ms)`);

  s.clock.set(Date.parse(d.nextAttemptAt));
  await s.app.webhooks.runOnce();
  t.equal(rx.got.length, 3);
  t.same(await pending(), [], 'the last failure is final');
  const dead = (await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries?status=dead`)).body;
  t.match(dead, [{ id: d.id, status: 'dead', attempts: 3, nextAttemptAt: null }]);
  s.clock.advance(30 * 86_400_000);
  await s.app.webhooks.runOnce();
  t.equal(rx.got.length, 3, 'a dead delivery is not tried again by itself');

  t.equal(new Set(rx.got.map((r) => r.headers['x-laurel-event-id'])).size, 1, 'every attempt carries the same event id');
  t.equal(new Set(rx.got.map((r) => r.body)).size, 1, 'and the same body');

  status = 200;
  const re = await s.call('POST', `/admin/v1/webhooks/deliveries/${d.id}/redeliver`);
  t.match(re, { status: 200, body: { id: d.id, status: 'pending', attempts: 0 } });
  await s.app.webhooks.runOnce();
  t.equal(rx.got.length, 4);
  t.match((await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries`)).body, [{ id: d.id, status: 'delivered', attempts: 1, lastStatus: 200, lastError: null }]);
  t.ok(verified(rx.got[3]!, hook.secret));

  t.same((await s.call('POST', `/admin/v1/webhooks/${hook.id}/redeliver`)).body, { redelivered: 0 }, 'no dead deliveries left to resend');
  t.equal((await s.call('POST', '/admin/v1/webhooks/deliveries/00000000-0000-0000-0000-000000000001/redeliver')).status, 404);
});

t.test('a receiver that never answers holds up neither events nor other endpoints', async (t) => {
  const s = await start(t, { WEBHOOK_TIMEOUT_MS: '300' });
  const slow = await receiver(t, () => 'hang');
  const fine = await receiver(t);
  const { n } = await s.metrics(['n']);
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: n!.id, metricThreshold: 1, points: 1, status: 'active' }] }] });
  const slowHook = await endpoint(s, slow.url, ['points.changed']);
  await endpoint(s, fine.url, ['points.changed']);

  t.equal((await s.event('n', { user: { id: 'u1' }, value: 1 })).status, 201);
  const sending = deliver(s);
  await until('the slow receiver to be called', async () => slow.got.length > 0);
  // The receiver holds its request open: events are answered all the same.
  for (let i = 0; i < 5; i++) t.equal((await s.event('n', { user: { id: `v${i}` }, value: 1 })).status, 201);
  await sending;
  await deliver(s); // whatever was queued meanwhile
  t.equal(fine.got.length, 6, 'the other endpoint got every delivery');
  const pending = (await s.call('GET', `/admin/v1/webhooks/${slowHook.id}/deliveries?status=pending`)).body;
  t.equal(pending.length, 6);
  t.ok(pending.every((d: any) => d.attempts === 1 && d.lastStatus === null && d.lastError === 'No answer within 300 ms'), 'each timed out once');
});

t.test('endpoints: secret shown once, validation, updates, rotation, deletion', async (t) => {
  const s = await start(t);
  const rx = await receiver(t);
  const c = await s.call('POST', '/admin/v1/webhooks', {
    body: [
      { url: rx.url, eventTypes: ['points.changed', 'achievement.completed', 'points.changed'], description: 'CRM' },
      { url: 'ftp://example.com/x', eventTypes: ['points.changed'] },
      { url: 'not a url', eventTypes: ['points.changed'] },
      { url: rx.url, eventTypes: [] },
      { url: rx.url, eventTypes: ['points.spent'] },
    ],
  });
  t.equal(c.status, 201);
  t.same(c.body.issues.map((i: { index: number }) => i.index), [1, 2, 3, 4]);
  t.match(c.body.issues[0].message, /http/);
  const [hook] = c.body.created;
  t.match(hook, { url: rx.url, description: 'CRM', status: 'active', eventTypes: ['achievement.completed', 'points.changed'], secret: /^whsec_.{40,}/ });

  const one = await s.call('GET', `/admin/v1/webhooks/${hook.id}`);
  const { secret, ...shown } = hook;
  t.same(one.body, shown, 'read back without the secret');
  t.notOk(JSON.stringify((await s.call('GET', '/admin/v1/webhooks')).body).includes(secret), 'the list never shows it');

  const u = await s.call('PATCH', '/admin/v1/webhooks', {
    body: [{ id: hook.id, eventTypes: ['achievement.completed'], status: 'inactive' }, { id: '00000000-0000-0000-0000-000000000001', status: 'active' }, { id: hook.id, url: 'mailto:x@y' }],
  });
  t.match(u.body.updated, [{ id: hook.id, eventTypes: ['achievement.completed'], status: 'inactive', url: rx.url }]);
  t.equal(u.body.issues.length, 2);

  // An inactive endpoint is sent nothing; active again, it is.
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/achievements', { body: [
    { key: 'a1', name: 'A1', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' },
    { key: 'a2', name: 'A2', trigger: 'metric', metricId: m!.id, metricValue: 2, status: 'active' },
  ] });
  await s.event('m', { user: { id: 'u' }, value: 1 });
  await deliver(s);
  t.equal(rx.got.length, 0);
  await s.call('PATCH', '/admin/v1/webhooks', { body: [{ id: hook.id, status: 'active' }] });

  const rot = await s.call('POST', `/admin/v1/webhooks/${hook.id}/rotate-secret`);
  t.equal(rot.status, 200);
  t.not(rot.body.secret, secret);
  await s.event('m', { user: { id: 'u' }, value: 1 });
  await deliver(s);
  t.equal(rx.got.length, 1);
  t.ok(verified(rx.got[0]!, rot.body.secret), 'signed with the new secret');
  t.notOk(verified(rx.got[0]!, secret), 'not with the old one');

  // Another tenant sees none of it.
  const other = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
  t.equal(other.status, 201);
  t.equal((await s.call('GET', `/admin/v1/webhooks/${hook.id}`, { tenant: 'acme' })).status, 404);
  t.equal((await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries`, { tenant: 'acme' })).status, 404);
  t.same((await s.call('GET', '/admin/v1/webhooks', { tenant: 'acme' })).body, []);

  t.equal((await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries?status=lost`)).status, 422);
  const del = await s.call('DELETE', `/admin/v1/webhooks?ids=${hook.id}`);
  t.same(del.body.deleted, [{ id: hook.id }]);
  t.equal((await s.call('GET', `/admin/v1/webhooks/${hook.id}/deliveries`)).status, 404);
  t.equal((await s.app.ctx.db.query('SELECT count(*)::int AS n FROM webhook_deliveries')).rows[0].n, 0, 'its deliveries went with it');
});

t.test('points.changed and leaderboard.rank_changed: at most once per user in 15 minutes', async (t) => {
  const s = await start(t);
  const rx = await receiver(t);
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 1, status: 'active' }] }] });
  await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, status: 'active', start: '2026-01-01' }] });
  await endpoint(s, rx.url, ['points.changed', 'leaderboard.rank_changed']);
  const sent = () => rx.got.map((r) => `${r.json.type} ${r.json.user.id} ${r.json.points?.total ?? r.json.leaderboard.rank}`);

  // u1 joins, then u2 passes u1 (u1's rank changes too, but only u2's event reports it), then u1 adds more.
  await s.event('m', { user: { id: 'u1' }, value: 1 });
  await s.event('m', { user: { id: 'u2' }, value: 5 });
  s.clock.advance(60_000);
  await s.event('m', { user: { id: 'u1' }, value: 10 });
  await deliver(s);
  t.same(sent().sort(), ['leaderboard.rank_changed u1 1', 'leaderboard.rank_changed u2 1', 'points.changed u1 1', 'points.changed u2 5'],
    "u1's second change in the window is not sent; u2 has its own window");

  s.clock.advance(15 * 60_000);
  await s.event('m', { user: { id: 'u1' }, value: 1 });
  await deliver(s);
  t.same(sent().slice(4).sort(), ['points.changed u1 12'], 'the next window sends again (the rank did not change)');
});

t.test('a batch flushed twice queues each event once', async (t) => {
  const s = await start(t);
  await s.app.flusher.stop();
  const rx = await receiver(t);
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
  await endpoint(s, rx.url, ['points.changed']);
  await endpoint(s, rx.url, ['points.changed', 'achievement.completed']);
  for (const u of ['a', 'b', 'c']) await s.event('m', { user: { id: u }, value: 3 });

  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const records = await r.xrange(stream, '-', '+');
  await s.app.flusher.drain();
  const count = async () => (await s.app.ctx.db.query('SELECT count(*)::int AS n FROM webhook_deliveries')).rows[0].n;
  t.equal(await count(), 6, 'three events, two endpoints each');
  await redeliver(r, stream, records);
  await s.app.flusher.drain();
  t.equal(await count(), 6, 'the replayed batch added nothing');
  await s.app.webhooks.runOnce();
  t.equal(rx.got.length, 6);
});

t.test('streaks: started, extended, freezes consumed and earned, lost', async (t) => {
  const s = await start(t);
  const rx = await receiver(t);
  const { m } = await s.metrics(['m']);
  await s.call('PUT', '/admin/v1/streak', {
    body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }], initialFreezes: 1, maxFreezes: 2, freezeAutoEarnInterval: 2, freezeAutoEarnAmount: 1 },
  });
  await endpoint(s, rx.url, ALL.filter((x) => x.startsWith('streak.')));
  const day = async (date: string) => {
    s.clock.set(`${date}T12:00:00Z`);
    // In UTC, whose midnight the sweep below is timed by.
    t.equal((await s.event('m', { user: { id: 'u', tz: 'UTC' }, value: 1 })).status, 201);
    await deliver(s);
    const out = rx.got.splice(0).map((r) => r.json);
    return Object.fromEntries(out.map((j) => [j.type, j]));
  };
  const d1 = await day('2026-03-01');
  t.same(Object.keys(d1), ['streak.started'], 'initial freezes are not reported as earned');
  t.match(d1['streak.started'].streak, { length: 1, freezes: 1, maxFreezes: 2, freezeAutoEarnInterval: 2, freezeAutoEarnAmount: 1 });

  // Day 2 missed: a freeze holds the streak; one is earned on day 3.
  const d3 = await day('2026-03-03');
  t.same(Object.keys(d3).sort(), ['streak.extended', 'streak.freeze_consumed', 'streak.freeze_earned']);
  t.match(d3['streak.freeze_consumed'], { consumed: 1, freezes: 1 });
  t.match(d3['streak.freeze_earned'], { earned: 1, freezes: 1 });
  t.match(d3['streak.extended'].streak, { length: 2, started: '2026-03-01', periodStart: '2026-03-03', expires: '2026-03-04', freezes: 1 });

  // Days 4 to 6 missed: freezes for days 4 and 5 (one earned on day 5), then the streak is lost; one more is earned on day 7.
  const d7 = await day('2026-03-07');
  t.same(Object.keys(d7).sort(), ['streak.freeze_consumed', 'streak.freeze_earned', 'streak.lost', 'streak.started']);
  t.match(d7['streak.freeze_consumed'], { consumed: 2, freezes: 1 });
  t.match(d7['streak.freeze_earned'], { earned: 2, freezes: 1 });
  t.match(d7['streak.lost'], { length: 2, user: { id: 'u' } });
  t.match(d7['streak.started'].streak, { length: 1, started: '2026-03-07' });

  // No more events: the scheduler's hourly sweep settles the streak, so the lapse is reported anyway.
  s.clock.set('2026-03-11T00:30:00Z');
  await s.app.scheduler.runOnce();
  await deliver(s);
  const swept = Object.fromEntries(rx.got.splice(0).map((r) => [r.json.type, r.json]));
  t.same(Object.keys(swept).sort(), ['streak.freeze_consumed', 'streak.freeze_earned', 'streak.lost']);
  t.match(swept['streak.freeze_consumed'], { consumed: 2, freezes: 1 });
  t.match(swept['streak.lost'], { length: 1 });
  await s.app.scheduler.runOnce();
  await deliver(s);
  t.equal(rx.got.length, 0, 'settling again reports nothing new');
});

t.test('achievements completed by a review of existing users are backdated: not reported', async (t) => {
  const s = await start(t);
  const rx = await receiver(t);
  const { m } = await s.metrics(['m']);
  const a = await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'ten', name: 'Ten', trigger: 'metric', metricId: m!.id, metricValue: 10, status: 'inactive' }] });
  await endpoint(s, rx.url, ['achievement.completed']);
  await s.event('m', { user: { id: 'old' }, value: 10 });
  await s.call('PATCH', '/admin/v1/achievements', { body: [{ id: a.body.created[0].id, status: 'active' }] });
  await s.app.scheduler.runOnce();
  t.match((await s.call('GET', '/v1/users/old/achievements')).body, [{ key: 'ten', achievedAt: /^2026/ }], 'completed by the review');
  await s.event('m', { user: { id: 'new' }, value: 10 });
  await deliver(s);
  t.same(rx.got.map((r) => r.json.user.id), ['new'], 'only the completion earned by an event is reported');
});

t.test('leaderboard runs start and finish; boosts start and finish', async (t) => {
  const s = await start(t);
  const rx = await receiver(t);
  const { m } = await s.metrics(['m']);
  await endpoint(s, rx.url, ['leaderboard.started', 'leaderboard.finished', 'points.boost_started', 'points.boost_finished']);
  // Weekly runs from Monday 2026-03-16; scheduled until then.
  const b = await s.call('POST', '/admin/v1/leaderboards', {
    body: [{ key: 'weekly', name: 'Weekly', rankBy: 'metric', metricId: m!.id, status: 'active', start: '2026-03-16', runUnit: 'day', runInterval: 7 }],
  });
  t.equal(b.body.created[0].status, 'scheduled');
  const sys = await s.call('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', boosts: [{ name: 'Double', start: '2026-03-16', end: '2026-03-17', multiplier: 2 }] }],
  });
  const boostId = sys.body.created[0].boosts[0].id;
  const tick = async (iso: string) => {
    s.clock.set(iso);
    await s.app.scheduler.runOnce();
    await s.app.webhooks.runOnce();
    return rx.got.splice(0).map((r) => r.json).sort((x, y) => x.type.localeCompare(y.type));
  };

  t.same(await tick('2026-03-15T09:59:00Z'), [], 'nothing before the first day begins anywhere');
  const opened = await tick('2026-03-15T10:00:00Z');
  t.match(opened, [
    { type: 'leaderboard.started', leaderboard: { key: 'weekly', status: 'active', start: '2026-03-16', end: '2026-03-22', runUnit: 'day', runInterval: 7, rankings: [] } },
    { type: 'points.boost_started', timestamp: '2026-03-16T00:00:00.000Z', boost: { id: boostId, name: 'Double', status: 'active', userId: null, pointsSystemKey: 'xp', pointsSystemName: 'XP', start: '2026-03-16', end: '2026-03-17', multiplier: 2, rounding: 'down' } },
  ]);
  t.same(await tick('2026-03-15T10:05:00Z'), [], 'each is announced once');

  s.clock.set('2026-03-16T12:00:00Z');
  await s.event('m', { user: { id: 'a', name: 'Ann' }, value: 3 });
  await s.event('m', { user: { id: 'b' }, value: 5 });
  await s.drain();
  t.match(await tick('2026-03-19T12:00:00Z'), [{ type: 'points.boost_finished', boost: { id: boostId, status: 'finished' }, timestamp: '2026-03-17T23:59:59.000Z' }]);

  // The first run is final at 12:00 UTC the day after its last day; the next one began two days before.
  const turn = await tick('2026-03-23T12:00:00Z');
  t.same(turn.map((e) => e.type).sort(), ['leaderboard.finished', 'leaderboard.started']);
  const finished = turn.find((e) => e.type === 'leaderboard.finished');
  t.match(finished.leaderboard, { key: 'weekly', start: '2026-03-16', end: '2026-03-22', status: 'active' });
  t.same(finished.leaderboard.rankings, [{ userId: 'b', userName: null, rank: 1, value: 5 }, { userId: 'a', userName: 'Ann', rank: 2, value: 3 }]);
  t.match(turn.find((e) => e.type === 'leaderboard.started').leaderboard, { start: '2026-03-23', end: '2026-03-29' });
  t.same(await tick('2026-03-23T12:30:00Z'), []);
});

t.test('two processes share the outbox without sending anything twice', async (t) => {
  const a = await start(t);
  const b = await start(t, { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey });
  const rx = await receiver(t);
  const { m } = await a.metrics(['m']);
  await a.call('POST', '/admin/v1/achievements', { body: [{ key: 'one', name: 'One', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
  await endpoint(a, rx.url, ['achievement.completed']);
  for (let i = 0; i < 30; i++) await (i % 2 ? a : b).event('m', { user: { id: `u${i}` }, value: 1 });
  await a.drain();
  await Promise.all([a.app.webhooks.runOnce(), b.app.webhooks.runOnce()]);
  t.equal(rx.got.length, 30);
  t.equal(new Set(rx.got.map((r) => r.json.user.id)).size, 30, 'each user once');
});
