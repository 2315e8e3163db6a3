import t from 'tap';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import typia from 'typia';
import type { LiveServerMessage } from '../src/wire/live';
import { startServer, TestServer } from './helpers/harness';
import { processDeployment, spawnServer } from './helpers/process';
import { contiguous, liveUrl, openLive } from './helpers/live-client';

async function board(s: TestServer, body: Record<string, unknown>) {
  const r = await s.call('POST', '/admin/v1/leaderboards', { body: [body] });
  if (r.status !== 201 || r.body.issues.length) throw new Error(`board setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0];
}

async function appKey(s: TestServer, userId: string, tenant?: string): Promise<string> {
  const r = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId }], tenant });
  if (r.status !== 201) throw new Error(`key setup failed: ${JSON.stringify(r.body)}`);
  return r.body.created[0].key;
}

const refusal = (p: Promise<unknown>) => p.then(() => null, (err: { status?: number; body?: { error?: string } }) => ({ status: err.status, error: err.body?.error }));
/** Every message is what /openapi.json's `x-laurel-live` says the server sends. */
const described = (messages: unknown[]) => messages.map((m) => typia.validate<LiveServerMessage>(m)).filter((r) => !r.success).map((r) => (r as { errors: unknown }).errors);
const ranks = (rankings: { userId: string; rank: number; value: number }[]) => rankings.map((r) => `${r.rank}:${r.userId}:${r.value}`);

t.test('who may connect and subscribe to what', async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] });
  await s.metrics(['m'], 'other');
  const alice = await appKey(s, 'alice');
  const url = liveUrl(s.url);

  t.match(await refusal(openLive(url)), { status: 401, error: String }, 'no key: 401 with an error body');
  t.match(await refusal(openLive(url, { 'X-API-KEY': 'app_nope.nope' })), { status: 401 });
  t.match(await refusal(openLive(url, { 'X-API-KEY': alice, 'Tenant-ID': 'other' })), { status: 403, error: /tenant/i }, 'an app key cannot open another tenant');
  const plain = await s.call('GET', '/v1/live', { key: alice });
  t.equal(plain.status, 426, 'a plain GET is told to upgrade');
  t.match(plain.body, { error: /WebSocket/ });

  const a = await openLive(url, { 'X-API-KEY': alice });
  t.teardown(() => a.close());
  a.send({ subscribe: 'user:bob' });
  t.match(await a.next((m) => m.subscribe === 'user:bob'), { error: /only to its own user \(user:alice\)/ }, 'refused with a reason');
  a.send({ subscribe: 'user:alice' });
  t.same(await a.next((m) => m.subscribed === 'user:alice'), { subscribed: 'user:alice', seq: 0 });
  a.send({ subscribe: 'nonsense' });
  t.match(await a.next((m) => m.subscribe === 'nonsense'), { error: /user:<id>/ });
  a.send({ subscribe: 'user:alice', top: 1000 });
  t.match(await a.next((m) => typeof m.error === 'string' && /top/.test(m.error)), { error: /top/ }, 'validated like any input');
  a.ws.send('not json');
  t.match(await a.next((m) => m.error === 'Malformed JSON'), {});

  // Tenants are apart: an admin connection on the default tenant hears nothing of another's user of the same id.
  const admin = await openLive(url, { 'X-API-KEY': s.adminKey });
  t.teardown(() => admin.close());
  admin.send({ subscribe: 'user:alice' });
  await admin.next((m) => m.subscribed === 'user:alice');
  t.equal((await s.event('m', { user: { id: 'alice' }, value: 5 }, { tenant: 'other' })).status, 201);
  t.equal((await s.event('m', { user: { id: 'alice' }, value: 1 })).status, 201);
  const mine = await admin.next((m) => m.type === 'metric.changed');
  t.match(mine, { subscription: 'user:alice', seq: 1, total: 1 }, 'only the own tenant\'s event arrives');
  await a.next((m) => m.type === 'metric.changed');
  t.same(a.of('user:alice').map((m) => m.total), [1], 'the app key sees its user, in its tenant only');

  a.send({ unsubscribe: 'user:alice' });
  t.same(await a.next((m) => m.unsubscribed === 'user:alice'), { unsubscribed: 'user:alice' });
  a.send({ unsubscribe: 'user:alice' });
  t.match(await a.next((m) => m.unsubscribe === 'user:alice'), { error: /Not subscribed/ });
  t.same(described([...a.messages, ...admin.messages]), [], 'every message as described');
});

t.test('tokens: scoped, short-lived, checked against the clock', async (t) => {
  const s = await startServer(t, { LIVE_TOKEN_TTL_SECONDS: '60' });
  await s.metrics(['m']);
  const alice = await appKey(s, 'alice');
  const minted = await s.call('POST', '/v1/live/tokens', { key: alice });
  t.equal(minted.status, 201);
  t.match(minted.body, { token: /^lt1\./, expiresAt: new Date(s.clock.now() + 60_000).toISOString() });
  t.equal((await s.call('POST', '/v1/live/tokens', { key: alice, body: { userId: 'bob' } })).status, 403, 'an app key mints for its own user only');

  const ws = await openLive(liveUrl(s.url, minted.body.token));
  t.teardown(() => ws.close());
  ws.send({ subscribe: 'user:bob' });
  t.match(await ws.next((m) => m.subscribe === 'user:bob'), { error: /own user/ }, "the token carries the key's scope");

  // An admin key mints a token for one user: what a backend hands its browser.
  const forCarol = await s.call('POST', '/v1/live/tokens', { body: { userId: 'carol' } });
  const c = await openLive(liveUrl(s.url, forCarol.body.token));
  t.teardown(() => c.close());
  c.send({ subscribe: 'user:dave' });
  t.match(await c.next((m) => m.subscribe === 'user:dave'), { error: /user:carol/ });

  t.match(await refusal(openLive(liveUrl(s.url, `${minted.body.token}x`))), { status: 401, error: /Invalid/ }, 'a forged token is refused');
  s.clock.advance(60_000);
  t.match(await refusal(openLive(liveUrl(s.url, minted.body.token))), { status: 401, error: /expired/ }, 'an expired token is refused');
});

t.test('connections per key are limited (LIVE_MAX_CONNECTIONS_PER_KEY); tokens minted for a user count apart', async (t) => {
  const s = await startServer(t, { LIVE_MAX_CONNECTIONS_PER_KEY: '2' });
  const url = liveUrl(s.url);
  const admin = { 'X-API-KEY': s.adminKey };
  const first = await openLive(url, admin);
  const second = await openLive(url, admin);
  t.teardown(() => second.close());
  t.match(await refusal(openLive(url, admin)), { status: 429, error: /LIVE_MAX_CONNECTIONS_PER_KEY/ }, 'the third is refused, with a reason');
  const forUser = async () => openLive(liveUrl(s.url, (await s.call('POST', '/v1/live/tokens', { body: { userId: 'u1' } })).body.token));
  const mine = await Promise.all([forUser(), forUser()]);
  t.teardown(() => mine.forEach((ws) => ws.close()));
  t.match(await refusal(forUser()), { status: 429 }, "a user's tokens have their own count");
  first.close();
  await first.closed;
  for (let i = 0; i < 500 && s.app.live!.stats().connections > 4; i++) await new Promise((r) => setTimeout(r, 10));
  const again = await openLive(url, admin);
  t.teardown(() => again.close());
  t.pass('a closed connection frees its place');
});

t.test("a user's changes: metric totals, points, achievements, streak and ranks, numbered", async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  const pts = await s.call('POST', '/admin/v1/points', {
    body: [{ key: 'xp', name: 'XP', status: 'active', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 10, status: 'active' }] }],
  });
  t.equal(pts.status, 201, JSON.stringify(pts.body));
  t.equal((await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'five', name: 'Five', trigger: 'metric', metricId: m!.id, metricValue: 5, status: 'active' }] })).status, 201);
  t.equal((await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } })).status, 200);
  await board(s, { key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, maxParticipants: 10, start: '2026-03-01', status: 'active' });

  const ws = await openLive(liveUrl(s.url), { 'X-API-KEY': s.adminKey });
  t.teardown(() => ws.close());
  ws.send({ subscribe: 'user:u1' });
  await ws.next((m) => m.subscribed === 'user:u1');
  const ev = await s.event('m', { user: { id: 'u1' }, value: 5 });
  t.equal(ev.status, 201);
  await ws.next((m) => m.type === 'leaderboard.rank_changed');
  const got = ws.of('user:u1');
  t.ok(contiguous(got.map((m) => m.seq)), 'numbered 1, 2, 3…');
  const byType = Object.fromEntries(got.map((m) => [m.type, m]));
  t.match(byType['metric.changed'], { eventId: ev.body.eventId, metricId: m!.id, metricKey: 'm', value: 5, total: 5 });
  t.same(byType['points.changed'].points, ev.body.points.xp, 'points as the event response shows them (awards with their trigger)');
  t.match(byType['achievement.completed'], { achievement: { key: 'five' } });
  t.match(byType['streak.started'], { streak: { length: 1, frequency: 'daily' } });
  t.match(byType['leaderboard.rank_changed'], { leaderboard: { key: 'top', rank: 1, previousRank: null, value: 5 } });
  t.same(described(ws.messages), [], 'every message as described');
});

t.test('a leaderboard view updates when someone below overtakes, at most LIVE_BOARD_RATE times a second', async (t) => {
  const s = await startServer(t, { LIVE_BOARD_RATE: '2' });
  const { m } = await s.metrics(['m']);
  const top = await board(s, { key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, maxParticipants: 100, start: '2026-03-01', status: 'active' });
  for (const [id, v] of [['ann', 30], ['bob', 20], ['cat', 10]] as const) await s.event('m', { user: { id, name: id }, value: v });

  const app = await appKey(s, 'cat');
  const ws = await openLive(liveUrl(s.url), { 'X-API-KEY': app });
  t.teardown(() => ws.close());
  ws.send({ subscribe: 'leaderboard:top', top: 2, around: { userId: 'cat', n: 1 } });
  await ws.next((m) => m.subscribed === 'leaderboard:top');
  const first = await ws.next((m) => m.type === 'leaderboard');
  t.match(first, { subscription: 'leaderboard:top', seq: 1, leaderboard: { key: 'top', status: 'active' } }, 'the current view comes first');
  t.ok(ws.messages.findIndex((m) => m.subscribed === 'leaderboard:top') < ws.messages.indexOf(first), 'after the acknowledgement');
  t.same(ranks(first.leaderboard.rankings), ['1:ann:30', '2:bob:20']);
  t.same(ranks(first.around), ['2:bob:20', '3:cat:10']);
  t.equal(first.leaderboard.rankings[0].userName, 'ann');

  await s.event('m', { user: { id: 'cat' }, value: 15 });
  const after = await ws.next((m) => m.type === 'leaderboard' && m.seq === 2);
  t.same(ranks(after.leaderboard.rankings), ['1:ann:30', '2:cat:25'], 'cat overtook bob');
  t.same(ranks(after.around), ['1:ann:30', '2:cat:25', '3:bob:20']);

  // Coalescing: a burst of changes, and the rate still holds; the last view is the final state.
  // Changes for two seconds at least, one after another.
  const started = performance.now();
  const before = ws.of('leaderboard:top').length;
  let cat = 25;
  for (let i = 0; i < 20 || performance.now() - started < 2000; i++) cat = (await s.event('m', { user: { id: 'cat' }, value: 1 })).body.total;
  // Past cat whatever the burst reached (a fast machine sends a thousand events in two seconds).
  const bob = (await s.event('m', { user: { id: 'bob' }, value: cat + 1000 })).body.total;
  const last = await ws.next((m) => m.type === 'leaderboard' && m.leaderboard.rankings[0]?.userId === 'bob');
  const elapsed = (performance.now() - started) / 1000;
  const sent = ws.of('leaderboard:top').length - before;
  t.ok(sent <= Math.floor(elapsed * 2) + 1, `${sent} views in ${elapsed.toFixed(2)} s: at most 2 a second`);
  t.ok(sent >= 2, 'coalesced, not held back: views kept coming during the burst');
  t.same(ranks(last.leaderboard.rankings), [`1:bob:${bob}`, `2:cat:${cat}`]);
  t.ok(contiguous(ws.of('leaderboard:top').map((m) => m.seq)));
  t.same(described(ws.messages), [], 'every message as described');
  t.ok(ws.of('leaderboard:top').every((m, i, all) => i === 0 || JSON.stringify(m.leaderboard) !== JSON.stringify(all[i - 1]!.leaderboard) || JSON.stringify(m.around) !== JSON.stringify(all[i - 1]!.around)), 'an unchanged view is not sent again');

  // The board deactivated: its subscribers are told (the subscription stays for when it returns).
  t.equal((await s.call('PATCH', '/admin/v1/leaderboards', { body: [{ id: top.id, status: 'inactive' }] })).status, 200);
  t.match(await ws.next((m) => m.type === 'leaderboard.unavailable'), { subscription: 'leaderboard:top', error: /not found/ });
  t.same(described(ws.messages), []);
});

t.test('a slow reader: updates dropped (a gap in seq), then closed; fast readers keep receiving', async (t) => {
  const s = await startServer(t, { LIVE_BOARD_RATE: '1000', LIVE_MAX_BUFFER_BYTES: '1024', LIVE_MAX_DROPPED: '40' });
  const { m } = await s.metrics(['m']);
  await board(s, { key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, maxParticipants: 100, start: '2026-03-01', status: 'active' });
  // A full board of 100 makes each view some 7 KB, so the kernel's buffers fill soon.
  await Promise.all(Array.from({ length: 100 }, (_, i) => s.event('m', { user: { id: `u${i}`, name: `User number ${i}` }, value: i + 1 })));

  const open = async () => {
    const ws = await openLive(liveUrl(s.url), { 'X-API-KEY': s.adminKey });
    t.teardown(() => ws.close());
    ws.send({ subscribe: 'leaderboard:top', top: 100 });
    ws.send({ subscribe: 'user:u0' });
    await ws.next((m) => m.type === 'leaderboard');
    await ws.next((m) => m.subscribed === 'user:u0');
    return ws;
  };
  const fast = await open();
  const slow = await open();
  const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  const live = s.app.live!;
  // Each event moves u0 (an update to user:u0) and the board (a new view).
  let total = 0;
  const push = async (until: () => boolean) => {
    for (let guard = 0; !until() && guard < 20_000; guard++) total = (await s.event('m', { user: { id: 'u0' }, value: 1 })).body.total;
    t.ok(until(), 'reached');
  };

  socket.pause();
  await push(() => live.stats().dropped >= 4);
  socket.resume();
  // The view held back comes once the reader caught up (so it is under the limit again)…
  await slow.next((m) => m.type === 'leaderboard' && m.leaderboard.rankings[0]?.value === total, 20_000);
  // …and a change after that arrives: everything before it has.
  const last = await s.event('m', { user: { id: 'u0' }, value: 1e6 });
  await slow.next((m) => m.type === 'metric.changed' && m.total === last.body.total, 20_000);
  await fast.next((m) => m.type === 'metric.changed' && m.total === last.body.total, 20_000);
  const onTop = (m: { type?: string; leaderboard?: { rankings: { userId: string; value: number }[] } }) => m.type === 'leaderboard' && m.leaderboard!.rankings[0]?.value === last.body.total;
  await slow.next(onTop, 20_000);
  await fast.next(onTop, 20_000);
  t.notOk(contiguous(slow.of('user:u0').map((m) => m.seq)), 'the slow reader sees a gap in its sequence numbers');
  t.ok(contiguous(slow.of('leaderboard:top').map((m) => m.seq)), 'views were held back, not numbered: the latest came once it caught up');
  t.ok(contiguous(fast.of('user:u0').map((m) => m.seq)), 'the fast one has every update');
  t.ok(contiguous(fast.of('leaderboard:top').map((m) => m.seq)));

  socket.pause();
  await push(() => live.stats().slowClosed > 0);
  socket.resume();
  t.match(await slow.closed, { code: 4008, reason: /Too slow/ }, 'closed with a code and a reason');
  const fastNow = fast.messages.length;
  await s.event('m', { user: { id: 'u1' }, value: 2e6 });
  const top = await fast.next((m) => m.type === 'leaderboard' && m.leaderboard.rankings[0]?.userId === 'u1', 20_000, fastNow);
  t.ok(top, 'the fast reader keeps receiving');
  t.ok(contiguous(fast.of('user:u0').map((m) => m.seq)));
  t.equal(live.stats().connections, 1);
});

/** A POST on a fresh connection, so the kernel may hand it to any worker. */
function post(url: string, path: string, key: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(`${url}${path}`, {
      method: 'POST', agent: false,
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data), Connection: 'close' },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(data);
  });
}

t.test('WORKERS=2: an event handled by any worker reaches subscribers on every worker; SIGTERM closes with 1012', async (t) => {
  const env = processDeployment(t, { WORKERS: '2' });
  const server = await spawnServer(env);
  const key = env.ADMIN_API_KEY;
  t.equal(await post(server.url, '/admin/v1/metrics', key, [{ name: 'M', key: 'm' }]), 201);
  // Several subscribers, on connections the kernel spreads over both workers.
  const subs = await Promise.all(Array.from({ length: 4 }, () => openLive(liveUrl(server.url), { 'X-API-KEY': key })));
  for (const ws of subs) ws.send({ subscribe: 'user:u' });
  await Promise.all(subs.map((ws) => ws.next((m) => m.subscribed === 'user:u')));

  const latencies: number[] = [];
  for (let i = 1; i <= 10; i++) {
    t.equal(await post(server.url, '/v1/metrics/m/event', key, { user: { id: 'u' }, value: 1 }), 201);
    const answered = performance.now();
    await Promise.all(subs.map(async (ws) => {
      await ws.next((m) => m.type === 'metric.changed' && m.total === i);
      latencies.push(performance.now() - answered);
    }));
  }
  t.ok(subs.every((ws) => contiguous(ws.of('user:u').map((m) => m.seq)) && ws.of('user:u').length === 10), 'every subscriber has every event');
  t.ok(Math.max(...latencies) < 1000, `each within the second (slowest ${Math.max(...latencies).toFixed(1)} ms after the event's response)`);

  server.proc.kill('SIGTERM');
  const closes = await Promise.all(subs.map((ws) => ws.closed));
  t.ok(closes.every((c) => c.code === 1012), `every socket closed with 1012 (${closes.map((c) => c.code).join(', ')})`);
  t.equal(await server.exit, 0);
});

t.test('laurel/client live(): updates, gap then resync, reconnect with resubscribe', async (t) => {
  const { Laurel } = require('laurel/client') as typeof import('../src/client');
  const WS = (await import('ws')).default as unknown as import('../src/client').WebSocketConstructor;
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await board(s, { key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, maxParticipants: 10, start: '2026-03-01', status: 'active' });
  const laurel = new Laurel({ apiKey: s.adminKey, baseUrl: s.url });

  // Against the server: a user's update and a board's view.
  const live = laurel.live({ WebSocket: WS });
  t.teardown(() => live.close());
  const got: { type: string; [k: string]: any }[] = [];
  /** The first message that matches, polled for up to 10 s (a guard, not a speed). */
  const arrived = async (pred: (m: any) => boolean) => {
    for (let i = 0; i < 1000; i++) {
      const found = got.find(pred);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no matching message; got ${JSON.stringify(got.slice(-3))}`);
  };
  live.subscribe('user:u1', (msg) => got.push(msg));
  live.subscribe('leaderboard:top', (msg) => got.push(msg), { top: 3 });
  await arrived((x) => x.type === 'leaderboard');
  // Messages are answered in order: once the board's first view is here, both subscriptions are acknowledged.
  await s.event('m', { user: { id: 'u1' }, value: 7 });
  t.match(await arrived((x) => x.type === 'metric.changed'), { subscription: 'user:u1', seq: 1, total: 7 });
  t.same(ranks((await arrived((x) => x.type === 'leaderboard' && x.leaderboard.rankings.length === 1)).leaderboard.rankings), ['1:u1:7']);

  // A scripted server: a gap makes the client fetch the REST view; a close (1012) makes it reconnect and subscribe again.
  const sockets: FakeSocket[] = [];
  class FakeSocket {
    readyState = 0;
    sent: any[] = [];
    onopen: ((ev: unknown) => void) | null = null;
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    onclose: ((ev: { code: number; reason: string }) => void) | null = null;
    onerror: ((ev: unknown) => void) | null = null;
    constructor(readonly url: string) {
      sockets.push(this);
      queueMicrotask(() => {
        this.readyState = 1;
        this.onopen?.({});
      });
    }
    send(data: string) {
      this.sent.push(JSON.parse(data));
    }
    close() {}
    serve(msg: unknown) {
      this.onmessage?.({ data: JSON.stringify(msg) });
    }
    drop(code: number) {
      this.readyState = 3;
      this.onclose?.({ code, reason: 'Server restarting: reconnect' });
    }
  }
  const statuses: unknown[] = [];
  const scripted = laurel.live({ WebSocket: FakeSocket, minDelayMs: 1, maxDelayMs: 5 });
  t.teardown(() => scripted.close());
  scripted.onStatus((st) => statuses.push(st));
  const seen: any[] = [];
  scripted.subscribe('user:u1', (msg) => seen.push(msg));
  const waitFor = async (pred: () => boolean) => {
    for (let i = 0; i < 1000 && !pred(); i++) await new Promise((r) => setTimeout(r, 5));
    return pred();
  };
  t.ok(await waitFor(() => sockets[0]?.sent.length === 1));
  t.match(sockets[0]!.url, /\/v1\/live\?token=lt1\./, 'connected with a minted token');
  t.same(sockets[0]!.sent, [{ subscribe: 'user:u1' }]);
  sockets[0]!.serve({ subscribed: 'user:u1', seq: 0 });
  sockets[0]!.serve({ subscription: 'user:u1', seq: 1, type: 'metric.changed', total: 7 });
  sockets[0]!.serve({ subscription: 'user:u1', seq: 3, type: 'metric.changed', total: 9 });
  t.ok(await waitFor(() => seen.some((x) => x.type === 'resync')), 'a gap fetches the REST view');
  t.match(seen.find((x) => x.type === 'resync'), { subscription: 'user:u1', metrics: [{ key: 'm', current: 7 }] });

  sockets[0]!.drop(1012);
  t.ok(await waitFor(() => sockets.length === 2 && sockets[1]!.sent.length === 1), 'reconnected');
  t.same(sockets[1]!.sent, [{ subscribe: 'user:u1' }], 'and subscribed again');
  t.match(statuses, [{ state: 'open' }, { state: 'closed', code: 1012, retryInMs: Number }, { state: 'open' }]);
  const resyncs = seen.filter((x) => x.type === 'resync').length;
  sockets[1]!.serve({ subscribed: 'user:u1', seq: 0 });
  t.ok(await waitFor(() => seen.filter((x) => x.type === 'resync').length === resyncs + 1), 'what was missed while away is fetched');
});

t.test('the page in docs/live-updates.md: the compiled client alone (no require, no key), a token from the backend, a live board', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await board(s, { key: 'weekly', name: 'Weekly', rankBy: 'metric', metricId: m!.id, maxParticipants: 10, start: '2026-03-01', status: 'active' });
  await s.event('m', { user: { id: 'ann', name: 'Ann' }, value: 3 });
  // What a browser has: the globals, and the file as served. The backend mints a token for its signed-in user.
  const page = vm.createContext({ exports: {}, WebSocket: (await import('ws')).default, fetch, setTimeout, clearTimeout, URLSearchParams });
  vm.runInContext(readFileSync(require.resolve('laurel/client'), 'utf8'), page);
  const backend = async () => (await s.call('POST', '/v1/live/tokens', { body: { userId: 'bob' } })).body.token as string;
  const shown: string[][] = [];
  const { Laurel: PageLaurel } = page.exports as typeof import('../src/client');
  const live = new PageLaurel({ apiKey: '', baseUrl: s.url }).live({ token: backend });
  t.teardown(() => live.close());
  live.subscribe('leaderboard:weekly', (msg) => {
    if (msg.type === 'leaderboard') shown.push(ranks(msg.leaderboard.rankings));
  }, { top: 10 });
  const waitFor = async (pred: () => boolean) => {
    for (let i = 0; i < 1000 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
    return pred();
  };
  t.ok(await waitFor(() => shown.length === 1), 'the current board');
  t.same(shown[0], ['1:ann:3']);
  await s.event('m', { user: { id: 'bob' }, value: 5 });
  t.ok(await waitFor(() => shown.length === 2), 'updated live');
  t.same(shown[1], ['1:bob:5', '2:ann:3']);
});
