import t from 'tap';
import { startServer, CallOptions, Res } from './helpers/harness';
import { deviationOf, documentedDepartures, excused, Exchange, loadTrophySpecs, operationOf } from './helpers/contract';

/** Operations of Trophy's specs not served yet (none: every one is exercised below). */
const NOT_YET_IMPLEMENTED = new Set<string>();

// Every response of a scenario touching each of Trophy's operations (successes
// and invalid input) is checked against the response schema Trophy documents
// for that operation and status. Anything else must be in the table of
// deliberate departures in docs/conformance.md.
t.test('every response conforms to Trophy\'s OpenAPI documents', async (t) => {
  const ops = loadTrophySpecs();
  t.equal(ops.length, 74, 'both documents loaded: 27 application and 47 admin operations');
  const s = await startServer(t);
  const seen: Exchange[] = [];
  const call = async (method: string, path: string, opts?: CallOptions): Promise<Res> => {
    const r = await s.call(method, path, opts);
    seen.push({ method, path, status: r.status, body: r.body });
    return r;
  };
  const ok = async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await call(method, path, body === undefined ? {} : { body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  // Admin: configuration, each resource listed, read, created, updated and deleted.
  const [lessons, spare] = (await ok('POST', '/admin/v1/metrics', [{ key: 'lessons', name: 'Lessons' }, { key: 'spare', name: 'Spare' }])).created;
  await ok('GET', '/admin/v1/metrics?limit=5');
  await ok('GET', `/admin/v1/metrics/${lessons.id}`);
  await ok('PATCH', '/admin/v1/metrics', [{ id: spare.id, name: 'Spare metric' }]);
  const [plan, source, gone] = (await ok('POST', '/admin/v1/attributes', [
    { key: 'plan', name: 'Plan', type: 'user' }, { key: 'source', name: 'Source', type: 'event' }, { key: 'old', name: 'Old', type: 'user' },
  ])).created;
  await ok('GET', '/admin/v1/attributes');
  await ok('GET', `/admin/v1/attributes/${plan.id}`);
  await ok('PATCH', '/admin/v1/attributes', [{ id: source.id, name: 'Event source' }]);
  await ok('DELETE', `/admin/v1/attributes?ids=${gone.id}`);

  const achievements = (await ok('POST', '/admin/v1/achievements', [
    { key: 'first', name: 'First lesson', trigger: 'metric', metricId: lessons.id, metricValue: 1, status: 'active' },
    { key: 'profile', name: 'Profile complete', trigger: 'api', status: 'active' },
  ])).created;
  const [xp] = (await ok('POST', '/admin/v1/points', [{
    key: 'xp', name: 'XP', levels: [{ key: 'rookie', name: 'Rookie', points: 10 }],
    boosts: [{ name: 'Launch', start: '2026-03-01', end: '2026-03-31', multiplier: 2 }],
    triggers: [
      { type: 'metric', metricId: lessons.id, metricThreshold: 1, points: 10, status: 'active' },
      { type: 'achievement', achievementId: achievements[1].id, points: 5, status: 'active' },
    ],
  }, { key: 'coins', name: 'Coins' }])).created;
  const coins = (await ok('GET', '/admin/v1/points?limit=10')).find((p: { key: string }) => p.key === 'coins') ?? (await ok('GET', '/admin/v1/points')).find((p: { key: string }) => p.key === 'coins');
  await ok('GET', `/admin/v1/points/${xp.id}`);
  await ok('PATCH', '/admin/v1/points', [{ id: xp.id, description: 'Experience' }]);
  const sys = `/admin/v1/points/${xp.id}`;
  const [level] = (await ok('POST', `${sys}/levels`, [{ key: 'pro', name: 'Pro', points: 100 }])).created;
  await ok('GET', `${sys}/levels`);
  await ok('GET', `${sys}/levels/${level.id}`);
  await ok('PATCH', `${sys}/levels`, [{ id: level.id, name: 'Professional' }]);
  const [boost] = (await ok('POST', `${sys}/boosts`, [{ name: 'Weekend', start: '2026-04-04', end: '2026-04-05', multiplier: 1.5 }])).created;
  await ok('GET', `${sys}/boosts`);
  await ok('GET', `${sys}/boosts/${boost.id}`);
  await ok('PATCH', `${sys}/boosts`, [{ id: boost.id, name: 'Long weekend' }]);
  await ok('DELETE', `${sys}/boosts?ids=${boost.id}`);
  const [trigger] = (await ok('POST', `${sys}/triggers`, [{ type: 'streak', streakLength: 2, points: 20, status: 'active' }])).created;
  await ok('GET', `${sys}/triggers`);
  await ok('GET', `${sys}/triggers/${trigger.id}`);
  await ok('PATCH', `${sys}/triggers`, [{ id: trigger.id, points: 25 }]);
  await ok('DELETE', `${sys}/levels?ids=${level.id}`);

  const [board, extra] = (await ok('POST', '/admin/v1/leaderboards', [
    { key: 'all-time', name: 'All time', rankBy: 'metric', metricId: lessons.id, start: '2026-01-01', status: 'active' },
    { key: 'extra', name: 'Extra', rankBy: 'points', pointsSystemId: xp.id, start: '2026-01-01' },
  ])).created;
  await ok('GET', '/admin/v1/leaderboards');
  await ok('GET', `/admin/v1/leaderboards/${board.id}`);
  await ok('PATCH', '/admin/v1/leaderboards', [{ id: extra.id, name: 'Extra XP' }]);
  await ok('DELETE', `/admin/v1/leaderboards?ids=${extra.id}`);
  await ok('PUT', '/admin/v1/streak', { enabled: true, frequency: 'daily', metrics: [{ metricId: lessons.id, threshold: 1 }], maxFreezes: 2 });

  const [tenant] = (await ok('POST', '/admin/v1/tenants', [{ customerId: 'acme', name: 'Acme' }])).created;
  await ok('GET', '/admin/v1/tenants');
  await ok('GET', `/admin/v1/tenants/${tenant.id}`);
  await ok('PATCH', '/admin/v1/tenants', [{ id: tenant.id, name: 'Acme Inc' }]);

  // Application API: a user's whole journey.
  await ok('POST', '/v1/users', { id: 'ada', name: 'Ada', tz: 'UTC', attributes: { plan: 'pro' } });
  await ok('PUT', '/v1/users/bob', { name: 'Bob' });
  await ok('PATCH', '/v1/users/bob', { email: 'bob@example.com' });
  await ok('GET', '/v1/users/ada');
  const event = await ok('POST', '/v1/metrics/lessons/event', { user: { id: 'ada' }, value: 2, attributes: { source: 'ios' } });
  t.equal(event.leaderboards['all-time'].status, 'active', 'the event response carries the board status');
  await call('POST', '/v1/metrics/lessons/event', { body: { user: { id: 'ada' }, value: 2 }, headers: { 'Idempotency-Key': 'k1' } });
  t.equal((await call('POST', '/v1/metrics/lessons/event', { body: { user: { id: 'ada' }, value: 2 }, headers: { 'Idempotency-Key': 'k1' } })).status, 202);
  await ok('POST', '/v1/metrics/lessons/event', { user: { id: 'bob' }, value: 7 });
  await ok('POST', '/v1/achievements/profile/complete', { user: { id: 'ada' } });
  await ok('GET', '/v1/achievements');
  await ok('GET', '/v1/users/ada/achievements?includeIncomplete=true');
  await ok('GET', '/v1/users/ada/metrics');
  await ok('GET', '/v1/users/ada/metrics/lessons');
  await ok('GET', '/v1/users/ada/metrics/lessons/event-summary?aggregation=daily&startDate=2026-03-09&endDate=2026-03-10');
  await ok('GET', '/v1/users/ada/streak?historyPeriods=3');
  await ok('GET', '/v1/streaks?userIds=ada,bob');
  await ok('GET', '/v1/streaks/rankings?limit=5');
  const points = await ok('GET', '/v1/users/ada/points/xp?awards=5');
  t.match(points.awards.find((a: { trigger: { type: string } }) => a.trigger.type === 'achievement')?.trigger, { achievementId: achievements[1].id, achievementName: 'Profile complete' });
  await ok('GET', '/v1/users/ada/points/xp/boosts');
  await ok('GET', '/v1/users/ada/points/xp/event-summary?aggregation=weekly&startDate=2026-03-09&endDate=2026-03-15');
  await ok('GET', '/v1/users/ada/leaderboards/all-time');
  await ok('GET', '/v1/points/xp');
  await ok('GET', '/v1/points/xp/summary');
  await ok('GET', '/v1/points/xp/boosts');
  await ok('GET', '/v1/points/xp/levels');
  await ok('GET', '/v1/points/xp/level-summary');
  await ok('GET', '/v1/leaderboards');
  await ok('GET', '/v1/leaderboards/all-time?limit=5');
  await ok('GET', '/v1/leaderboards/all-time?userId=ada&limit=1');

  // Admin: per-user streak operations, keys, batch events, then deletions.
  await ok('POST', '/admin/v1/streaks/freezes', { freezes: [{ userId: 'ada' }] });
  const pauses = await ok('POST', '/admin/v1/streaks/pauses', { pauses: [{ userId: 'ada', start: '2026-04-01', end: '2026-04-03' }] });
  t.equal(pauses.created[0].status, 'active');
  await ok('DELETE', `/admin/v1/streaks/pauses?ids=${pauses.created[0].id}`);
  await ok('POST', '/admin/v1/streaks/restore', { users: [{ id: 'ada' }] });
  const keys = await ok('POST', '/admin/v1/application-api-keys', [{ userId: 'ada' }]);
  await ok('DELETE', `/admin/v1/application-api-keys?ids=${keys.created[0].id}`);
  const batch = await call('POST', '/admin/v1/metrics/events', { body: [
    { key: 'lessons', user: { id: 'cat' }, value: 1, idempotencyKey: 'b-1' },
    { key: 'lessons', user: { id: 'dan', tz: 'Europe/Paris' }, value: 2, attributes: { source: 'web' } },
  ] });
  t.same([batch.status, batch.body], [202, { accepted: 2 }]);
  await ok('DELETE', `/admin/v1/points/${xp.id}/triggers?ids=${trigger.id}`);
  await ok('DELETE', `/admin/v1/points?ids=${coins.id}`);
  await ok('DELETE', `/admin/v1/metrics?ids=${spare.id}`);
  await ok('DELETE', `/admin/v1/tenants?ids=${tenant.id}`);

  // Invalid input: 422 wherever Trophy documents it.
  const invalid: [string, string, unknown?][] = [
    ['POST', '/admin/v1/metrics', []],
    ['PATCH', '/admin/v1/metrics', []],
    ['DELETE', '/admin/v1/metrics'],
    ['GET', '/admin/v1/metrics?limit=0'],
    ['GET', '/admin/v1/metrics?limit=101'],
    ['GET', '/admin/v1/attributes?skip=-1'],
    ['GET', '/admin/v1/metrics/not-a-uuid'],
    ['POST', '/admin/v1/points', []],
    ['DELETE', `/admin/v1/points/${xp.id}/levels`],
    ['POST', '/admin/v1/leaderboards', []],
    ['POST', '/admin/v1/tenants', []],
    ['POST', '/admin/v1/streaks/pauses', { pauses: [] }],
    ['DELETE', '/admin/v1/streaks/pauses'],
    ['POST', '/admin/v1/application-api-keys', []],
    ['POST', '/admin/v1/metrics/events', []],
    ['POST', '/admin/v1/metrics/events', [{ key: 'lessons', user: {}, value: 1 }]],
    ['POST', '/v1/achievements/profile/complete', {}],
    ['GET', '/v1/users/ada/metrics/lessons/event-summary'],
    ['GET', '/v1/users/ada/metrics/lessons/event-summary?aggregation=hourly&startDate=2026-03-09&endDate=2026-03-10'],
    ['GET', '/v1/users/ada/streak?historyPeriods=many'],
    ['GET', '/v1/streaks'],
    ['GET', '/v1/streaks/rankings?limit=0'],
    ['GET', '/v1/users/ada/points/xp?awards=0'],
    ['GET', '/v1/users/ada/points/xp?awards=101'],
    ['GET', '/v1/users/ada/leaderboards/all-time?numEvents=101'],
    ['GET', '/v1/points/coins/level-summary'],
    ['POST', '/v1/metrics/lessons/event', { user: { id: 'ada' }, value: 'ten' }],
  ];
  for (const [method, path, body] of invalid) {
    const r = await call(method, path, body === undefined ? {} : { body });
    if (path === '/v1/points/coins/level-summary') continue; // coins was deleted above: 404 is right too
    t.equal(r.status, 422, `${method} ${path} is 422`);
  }
  // The retention layer: a user's preferences and Wrapped.
  await ok('GET', '/v1/users/ada/preferences');
  await ok('PATCH', '/v1/users/ada/preferences', { notifications: { recap: [] } });
  await ok('GET', '/v1/users/ada/wrapped?year=2026');
  // And one invalid request for every operation that documents 422.
  const probe = (name: string): [string, unknown?] | null => {
    const [, path] = name.split(' ') as [string, string];
    if (path.startsWith('/admin/v1/')) {
      const concrete = path.replace('{systemId}', xp.id).replace('{id}', 'not-a-uuid');
      if (name.startsWith('POST') || name.startsWith('PATCH')) return [concrete, path.includes('/streaks/') ? {} : []];
      return [name.startsWith('GET') && !path.endsWith('{id}') ? `${concrete}?limit=0` : concrete];
    }
    if (path.includes('{')) return [path.replace(/\{\w+\}/g, 'x'.repeat(256)), name.startsWith('GET') ? undefined : {}];
    const rest: Record<string, [string, unknown?]> = {
      'GET /v1/achievements': ['/v1/achievements?userAttributes=nonsense'],
      'GET /v1/streaks': ['/v1/streaks'],
      'GET /v1/leaderboards': ['/v1/leaderboards?includeFinished=maybe'],
      'POST /v1/users': ['/v1/users', { id: '' }],
    };
    return rest[name] ?? null;
  };
  for (const op of ops.filter((o) => o.responses.has(422) && !NOT_YET_IMPLEMENTED.has(o.name))) {
    const p = probe(op.name);
    if (!p) {
      t.fail(`no invalid request for ${op.name}`);
      continue;
    }
    const r = await call(op.method, p[0], p[1] === undefined ? {} : { body: p[1] });
    t.equal(r.status, 422, `${op.name}: invalid input is 422 (${r.body?.error})`);
  }

  // A points system without levels has no level summary (422), as Trophy says.
  await ok('POST', '/admin/v1/points', [{ key: 'flat', name: 'Flat' }]);
  t.equal((await call('GET', '/v1/points/flat/level-summary')).status, 422);
  t.equal((await call('POST', '/v1/metrics/lessons/event', { raw: '{', headers: { 'Content-Type': 'application/json' } })).status, 400, 'unreadable JSON: 400, documented here');
  t.equal((await call('GET', '/v1/users/nobody/metrics')).status, 404);
  // Deliberate departures (docs/conformance.md): each must stay as the table says.
  t.equal((await call('GET', '/v1/users/nobody')).status, 404, 'an unknown user');
  t.equal((await call('POST', '/v1/metrics/missing/event', { body: { user: { id: 'ada' }, value: 1 } })).status, 404, 'an unknown metric');
  t.equal((await call('POST', '/v1/achievements/profile/complete', { body: { user: { id: 'ada' } } })).status, 200, 'completed before');
  const own = await ok('POST', '/admin/v1/application-api-keys', [{ userId: 'bob' }]);
  t.equal((await call('GET', '/v1/users/ada', { key: own.created[0].key })).status, 403, "an application key outside its user");
  t.equal((await call('GET', '/v1/leaderboards/none')).status, 404);

  // Judge every exchange.
  const departures = documentedDepartures();
  t.ok(departures.length > 0, 'the table of deliberate departures in docs/conformance.md is read');
  const deviations = seen.map((x) => ({ x, d: deviationOf(ops, x) })).filter(({ x, d }) => d && !excused(departures, d, x));
  t.same(deviations.map(({ x, d }) => `${x.method} ${x.path} → ${x.status}: ${d!.problem}`), [], 'no undocumented deviation');

  // Which operations the scenario covered, each with at least one success.
  const covered = new Set(seen.filter((x) => x.status < 300).map((x) => operationOf(ops, x.method, x.path)?.name).filter(Boolean));
  const missing = ops.map((o) => o.name).filter((n) => !covered.has(n) && !NOT_YET_IMPLEMENTED.has(n));
  t.same(missing, [], 'every operation but the known gaps was exercised');
  const bad = new Set(deviations.map(({ d }) => d!.operation));
  t.comment(`conforming operations: ${ops.filter((o) => covered.has(o.name) && !bad.has(o.name)).length} of ${ops.length}`);
});
