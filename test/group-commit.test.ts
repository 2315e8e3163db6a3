import t from 'tap';
import { startServer, sharedRedis, TestServer } from './helpers/harness';
import { recordEvent } from '../src/services/record-event';
import { totalField } from '../src/domain/user-hash';
import type { Tenant } from '../src/store/tenants';
import type { EventBody } from '../src/wire/app';

/**
 * Group commit: the events of one tenant that reach the engine in the same
 * turn of the event loop go to Redis in one call, and each is answered as if
 * it had been sent alone. The service is called without awaiting in between,
 * so the events meet in one turn for certain (over HTTP, the requests that
 * the server dispatches in one poll do); the number of event calls Redis
 * received comes from the process's metrics.
 */

/** FCALLs that carried events: single (script "event") or grouped ("event_group"). */
async function eventCalls(s: TestServer): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  return [...text.matchAll(/^laurel_redis_script_duration_seconds_count\{script="event(?:_group)?"\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

type Sent = { metric: string; body: EventBody; key?: string };

/** Send events together (one turn) through the service; their outcomes in order, and how many event calls it took. */
async function together(s: TestServer, tenant: Tenant, events: Sent[]) {
  const before = await eventCalls(s);
  const outcomes = await Promise.allSettled(events.map((e) => recordEvent(s.app.ctx, tenant, e.metric, e.body, e.key ?? '')));
  const calls = (await eventCalls(s)) - before;
  return {
    calls,
    replies: outcomes.map((o) => (o.status === 'fulfilled' ? { status: o.value.replayed ? 202 : 201, body: JSON.parse(JSON.stringify(o.value.response)) } : { status: 0, error: (o.reason as Error).message })),
  };
}

async function setUp(s: TestServer, tenant?: string) {
  const { words, spend } = await s.metrics(['words', 'spend'], tenant);
  const post = await s.call('POST', '/admin/v1/points', {
    tenant,
    body: [
      { name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: words!.id, metricThreshold: 1, points: 10, status: 'active' }] },
      {
        name: 'Energy', key: 'energy',
        triggers: [
          { type: 'user_creation', points: 1, status: 'active' },
          { type: 'metric', metricId: spend!.id, metricThreshold: 1, points: -1, status: 'active', blockIfOutOfPoints: true },
        ],
      },
    ],
  });
  if (post.status !== 201) throw new Error(`points: ${post.status} ${JSON.stringify(post.body)}`);
  // Load the config and the programs, so the events below meet in one turn.
  await s.event('words', { user: { id: 'warm' }, value: 1 }, { tenant });
  await s.event('spend', { user: { id: 'warm' }, value: 1 }, { tenant });
}

t.test('group commit', async (t) => {
  const s = await startServer(t, { EVENT_GROUP_MAX: '64' });
  await setUp(s);
  const tenant = await s.app.ctx.tenants.resolve({ kind: 'admin' }, '');

  t.test('one call answers each event with its own consequences, in order per user', async (t) => {
    const { calls, replies } = await together(s, tenant, [
      { metric: 'words', body: { user: { id: 'ann' }, value: 1 } },
      { metric: 'words', body: { user: { id: 'bob' }, value: 2 } },
      { metric: 'words', body: { user: { id: 'ann' }, value: 3 } },
      { metric: 'words', body: { user: { id: 'cy' }, value: 1 } },
      { metric: 'words', body: { user: { id: 'ann' }, value: 5 } },
      { metric: 'words', body: { user: { id: 'bob' }, value: 1 } },
    ]);
    t.equal(calls, 1, 'six events, one event call');
    t.same(replies.map((r) => r.status), [201, 201, 201, 201, 201, 201]);
    t.same(replies.map((r) => r.body.total), [1, 2, 4, 1, 9, 3], "each total is its user's running sum, in the order sent");
    t.same(replies.map((r) => r.body.points.xp.total), [10, 20, 40, 10, 90, 30]);
    t.same(replies.map((r) => r.body.points.xp.added), [10, 20, 30, 10, 50, 10], 'each reports only what it added');
    t.same(replies.map((r) => 'energy' in r.body.points), [true, true, false, true, false, false], 'user creation is reported once per user');
    t.equal(new Set(replies.map((r) => r.body.eventId)).size, 6, 'each has its own event id');
    // Afterwards the state is what the events make one by one.
    t.equal((await s.call('GET', '/v1/users/ann/metrics/words')).body.current, 9);
    t.equal((await s.call('GET', '/v1/users/bob/points/xp')).body.total, 30);
  });

  t.test('a replay inside the group answers as a replay of the first', async (t) => {
    const { calls, replies } = await together(s, tenant, [
      { metric: 'words', body: { user: { id: 'dee' }, value: 2 }, key: 'k1' },
      { metric: 'words', body: { user: { id: 'dee' }, value: 2 }, key: 'k1' },
      { metric: 'words', body: { user: { id: 'dee' }, value: 1 } },
    ]);
    t.equal(calls, 1);
    t.same(replies.map((r) => r.status), [201, 202, 201]);
    t.equal(replies[1]!.body.eventId, replies[0]!.body.eventId, 'the replay names the first event');
    t.equal(replies[1]!.body.idempotentReplayed, true);
    t.same(replies.map((r) => r.body.total), [2, 2, 3], 'the replay adds nothing');
  });

  t.test('a blocked event applies nothing of its own; the others in its group apply', async (t) => {
    const { calls, replies } = await together(s, tenant, [
      { metric: 'spend', body: { user: { id: 'eve' }, value: 1 } }, // energy 1 (creation) - 1 = 0
      { metric: 'spend', body: { user: { id: 'eve', name: 'Changed' }, value: 1 } }, // no energy left: blocked
      { metric: 'words', body: { user: { id: 'eve' }, value: 4 } },
      { metric: 'words', body: { user: { id: 'fay' }, value: 1 } },
    ]);
    t.equal(calls, 1);
    t.same(replies.map((r) => r.status), [201, 0, 201, 201]);
    t.match(replies[1], { error: /Not enough points in "energy"/ });
    t.equal((await s.call('GET', '/v1/users/eve/metrics/spend')).body.current, 1, 'the blocked event did not count');
    t.equal((await s.call('GET', '/v1/users/eve')).body.name, null, 'nor change the profile');
    t.equal((await s.call('GET', '/v1/users/eve/metrics/words')).body.current, 4);
    t.equal((await s.call('GET', '/v1/users/fay/metrics/words')).body.current, 1);
  });

  t.test("a script error fails its own event only, and no other tenant's", async (t) => {
    const c = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] });
    t.equal(c.status, 201);
    await setUp(s, 'other');
    const other = await s.app.ctx.tenants.resolve({ kind: 'admin' }, 'other');
    // A total Redis cannot read: the script fails on it before writing anything.
    const cfg = await s.app.ctx.configs.get(tenant);
    const redis = await sharedRedis(t);
    await redis.hset(s.app.ctx.keys.tenant(tenant.slot).user('bad'), totalField(cfg.metricsByKey.get('words')!.slot), 'not a number');

    const before = await eventCalls(s);
    const [mine, theirs] = await Promise.all([
      together(s, tenant, [
        { metric: 'words', body: { user: { id: 'gus' }, value: 1 } },
        { metric: 'words', body: { user: { id: 'bad' }, value: 1 } },
        { metric: 'words', body: { user: { id: 'hal' }, value: 1 } },
      ]),
      together(s, other, [
        { metric: 'words', body: { user: { id: 'gus' }, value: 7 } },
        { metric: 'words', body: { user: { id: 'ivy' }, value: 1 } },
      ]),
    ]);
    t.equal((await eventCalls(s)) - before, 2, 'one call per tenant');
    t.same(mine.replies.map((r) => r.status), [201, 0, 201], 'the events around the failing one stand');
    t.match(mine.replies[1], { error: /arithmetic|number/ });
    t.same(theirs.replies.map((r) => [r.status, r.body.total]), [[201, 7], [201, 1]], 'the other tenant is untouched');
    t.equal((await s.call('GET', '/v1/users/hal/metrics/words')).body.current, 1);
  });
});

t.test('by default (EVENT_GROUP_MAX=1) each event is sent alone', async (t) => {
  const s = await startServer(t);
  await setUp(s);
  const tenant = await s.app.ctx.tenants.resolve({ kind: 'admin' }, '');
  const { calls, replies } = await together(s, tenant, [
    { metric: 'words', body: { user: { id: 'a' }, value: 1 } },
    { metric: 'words', body: { user: { id: 'a' }, value: 2 } },
  ]);
  t.equal(calls, 2);
  t.same(replies.map((r) => r.body.total), [1, 3]);
});
