import t from 'tap';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { purgePrefix, sharedRedis, startServer, TestServer } from './helpers/harness';
import type { RedisClient } from '../src/redis/client';
import { scanKeys } from '../src/redis/client';

type Tap = { equal: (...args: any[]) => unknown };

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';

/** Every text and jsonb cell of the server's schema that holds `needle`: `table.column` for each. */
async function postgresMentions(schema: string, needle: string): Promise<string[]> {
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    const { rows: cols } = await c.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
       WHERE c.table_schema = $1 AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') OR c.udt_name IN ('_text', '_varchar'))`,
      [schema],
    );
    const found: string[] = [];
    for (const col of cols) {
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}"."${col.table_name}" WHERE strpos("${col.column_name}"::text, $1) > 0`,
        [needle],
      );
      if (rows[0]!.n > 0) found.push(`${col.table_name}.${col.column_name}`);
    }
    if (cols.length < 10) throw new Error('too few columns found: the scan is wrong');
    return found;
  } finally {
    await c.end();
  }
}

/** The `payload` column of a query's rows. */
async function query(schema: string, sql: string): Promise<string[]> {
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    await c.query(`SET search_path TO "${schema}"`);
    return (await c.query<{ payload: string }>(sql)).rows.map((r) => r.payload);
  } finally {
    await c.end();
  }
}

/** Every Redis key under `prefix` holding `needle` in its name, a field, a member or a value. */
async function redisMentions(r: RedisClient, prefix: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  let scanned = 0;
  await scanKeys(r, `${prefix}*`, async (keys, node) => {
    for (const key of keys) {
      scanned++;
      const has = (parts: string[]) => parts.some((p) => p.includes(needle));
      if (key.includes(needle)) {
        found.push(`name ${key}`);
        continue;
      }
      const type = await node.type(key);
      let parts: string[] = [];
      if (type === 'string') parts = [(await node.get(key)) ?? ''];
      else if (type === 'hash') parts = Object.entries(await node.hgetall(key)).flat();
      else if (type === 'set') parts = await node.smembers(key);
      else if (type === 'zset') parts = await node.zrange(key, 0, -1);
      else if (type === 'list') parts = await node.lrange(key, 0, -1);
      else if (type === 'stream') parts = (await node.xrange(key, '-', '+')).flatMap(([id, f]) => [id, ...f]);
      else parts = [`unknown type ${type}`, needle];
      if (has(parts)) found.push(`${type} ${key}`);
    }
  });
  if (scanned < 5) throw new Error('too few keys found: the scan is wrong');
  return found;
}

/** A tenant set up with everything a user can have: totals, points, achievements, a streak, boards, a boost, a key, pauses and webhooks. */
async function seed(t: Tap, s: TestServer, victim: string) {
  await s.attributes([{ key: 'team', type: 'user' }]);
  const { steps } = await s.metrics(['steps']);
  const attrs = await s.call('GET', '/admin/v1/attributes');
  const team = attrs.body.find((a: { key: string }) => a.key === 'team').id;
  const xp = await s.call('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp',
      levels: [{ name: 'One', key: 'one', points: 5 }],
      triggers: [
        { type: 'metric', metricId: steps!.id, metricThreshold: 10, points: 5, status: 'active' },
        { type: 'time', timeUnit: 'days', timeInterval: 1, points: 1, status: 'active' },
      ],
    }],
  });
  t.equal(xp.status, 201);
  const xpId = xp.body.created[0].id;
  const boost = await s.call('POST', `/admin/v1/points/${xpId}/boosts`, { body: [{ name: 'Just for them', userId: victim, start: '2026-03-01', multiplier: 2 }] });
  t.equal(boost.status, 201);
  const ach = await s.call('POST', '/admin/v1/achievements', {
    body: [
      { key: 'big', name: 'Fifty steps', trigger: 'metric', metricId: steps!.id, metricValue: 50, status: 'active' },
      { key: 'hello', name: 'Hello', trigger: 'api', status: 'active' },
    ],
  });
  t.equal(ach.status, 201);
  t.equal((await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: steps!.id, threshold: 1 }] } })).status, 200);
  const boards = await s.call('POST', '/admin/v1/leaderboards', {
    body: [
      { key: 'all', name: 'All time', rankBy: 'metric', metricId: steps!.id, start: '2026-03-01', status: 'active' },
      { key: 'by-team', name: 'By team', rankBy: 'metric', metricId: steps!.id, start: '2026-03-01', status: 'active', breakdownAttributes: [team] },
      { key: 'weekly-xp', name: 'Weekly XP', rankBy: 'points', pointsSystemId: xpId, start: '2026-03-01', runUnit: 'day', runInterval: 7, status: 'active' },
      { key: 'streaks', name: 'Streaks', rankBy: 'streak', start: '2026-03-01', status: 'active' },
    ],
  });
  t.equal(boards.status, 201);
  // Nobody listens there: deliveries stay in the outbox, pending.
  t.equal((await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hooks', eventTypes: ['points.changed', 'achievement.completed', 'leaderboard.changed', 'streak.started'] }] })).status, 201);
  return { steps: steps!, xpId };
}

t.test('erasing a user removes them everywhere; only a tombstone stays', async (t) => {
  const s = await startServer(t, { WEBHOOK_POLL_MS: '3600000' });
  const victim = `erase-me-${randomBytes(4).toString('hex')}`;
  const keeper = 'keeper';
  await seed(t, s, victim);

  const key = await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: victim }] });
  t.equal(key.status, 201);
  const victimKey = key.body.created[0].key;

  // Two days of events; the victim leads every board.
  for (const day of ['2026-03-10', '2026-03-11']) {
    s.clock.set(`${day}T09:00:00Z`);
    t.equal((await s.event('steps', { user: { id: victim, name: 'Victim', attributes: { team: 'red' } }, value: 30 }, { headers: { 'Idempotency-Key': `v-${day}` } })).status, 201);
    t.equal((await s.event('steps', { user: { id: keeper, name: 'Keeper', attributes: { team: 'red' } }, value: 12 }, { headers: { 'Idempotency-Key': `k-${day}` } })).status, 201);
    await s.app.scheduler.runOnce();
  }
  s.clock.set('2026-03-12T10:00:00Z');
  await s.app.scheduler.runOnce();
  t.equal((await s.call('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: victim, start: '2026-04-01', end: '2026-04-03' }] } })).status, 201);
  for (const u of [victim, keeper]) t.equal((await s.call('POST', '/v1/achievements/hello/complete', { body: { user: { id: u } } })).status, 201);
  await s.drain();

  const rankOf = async (board: string, u: string, query = '') =>
    (await s.call('GET', `/v1/leaderboards/${board}${query}`)).body.rankings.find((r: { userId: string }) => r.userId === u)?.rank ?? null;
  t.equal(await rankOf('all', victim), 1);
  t.equal(await rankOf('all', keeper), 2);
  t.equal(await rankOf('by-team', keeper, '?userAttributes=team:red'), 2);
  t.equal(await rankOf('weekly-xp', keeper), 2);
  const rarity = async () => {
    const all = (await s.call('GET', '/v1/achievements')).body as { key: string; completions: number; rarity: number }[];
    return Object.fromEntries(all.map((a) => [a.key, [a.completions, a.rarity]]));
  };
  t.same(await rarity(), { big: [1, 50], hello: [2, 100] });
  t.ok((await postgresMentions(s.schema, victim)).length > 5, 'Postgres held the user in many places');
  t.same((await postgresMentions(s.schema, 'Victim')).sort(), ['user_state.state', 'users.name', 'webhook_deliveries.payload'], 'their name: in the profile, and the outbox');
  const snapshots = await query(s.schema, `SELECT payload FROM webhook_deliveries WHERE type = 'leaderboard.changed'`);
  t.ok(snapshots.some((p) => p.includes(victim)), 'leaderboard snapshots in the outbox rank them');

  // One more event, still in the change stream when the erasure comes (the
  // flusher is held back): it must not come back when it is flushed.
  await s.app.flusher.stop();
  t.equal((await s.event('steps', { user: { id: victim }, value: 1 }, { headers: { 'Idempotency-Key': 'v-late' } })).status, 201);

  const erased = await s.call('DELETE', `/admin/v1/users/${victim}`);
  t.equal(erased.status, 200);
  t.same(erased.body, { id: victim, erased: true, erasedAt: new Date(s.clock.now()).toISOString() });
  await s.drain();
  s.clock.set('2026-03-13T10:00:00Z');
  await s.app.scheduler.runOnce();
  await s.drain();

  // Gone for every reader, and the others re-rank.
  t.equal((await s.call('GET', `/v1/users/${victim}`)).status, 404);
  t.equal((await s.call('GET', '/v1/users/keeper')).status, 200);
  t.equal(await rankOf('all', victim), null);
  t.equal(await rankOf('all', keeper), 1, 'the other user moves up');
  t.equal(await rankOf('by-team', keeper, '?userAttributes=team:red'), 1, 'in a breakdown group too');
  t.equal(await rankOf('weekly-xp', keeper), 1);
  t.equal(await rankOf('streaks', victim), null);
  t.same(await rarity(), { big: [0, 0], hello: [1, 100] }, 'rarity no longer counts them');
  t.equal((await s.call('GET', `/v1/users/${victim}`, { key: victimKey })).status, 401, "the user's application key is revoked");
  t.equal((await s.call('GET', `/admin/v1/users/${victim}/export`)).status, 404);

  // Nothing names them: not Postgres (the tombstone is a hash), not Redis.
  t.same(await postgresMentions(s.schema, victim), [], 'no Postgres column holds the user id');
  t.same(await postgresMentions(s.schema, 'Victim'), [], 'nor their name (leaderboard snapshots in the outbox lost their line)');
  const kept = await query(s.schema, `SELECT payload FROM webhook_deliveries WHERE type = 'leaderboard.changed'`);
  t.equal(kept.length, snapshots.length, 'the snapshots are still sent, without them');
  t.ok(kept.every((p) => JSON.parse(p).leaderboard.rankings.some((r: { userId: string }) => r.userId === keeper)));
  const r = await sharedRedis(t);
  t.same(await redisMentions(r, s.prefix, victim), [], 'no Redis key, field, member or value holds the user id');
  t.same(await redisMentions(r, s.prefix, 'Victim'), [], 'nor their name');

  // A restore from Postgres does not bring them back.
  await s.app.close();
  await purgePrefix(s.prefix);
  const b = await startServer(t, { DATABASE_SCHEMA: s.schema, REDIS_KEY_PREFIX: s.prefix, ADMIN_API_KEY: s.adminKey, WEBHOOK_POLL_MS: '3600000' });
  b.clock.set(s.clock.now());
  t.equal((await b.call('GET', `/v1/users/${victim}`)).status, 404);
  t.equal((await b.call('GET', '/v1/leaderboards/all')).body.rankings.map((x: { userId: string }) => x.userId).join(), keeper);
  const after = (await b.call('GET', '/v1/achievements')).body as { key: string; completions: number; rarity: number }[];
  t.same(Object.fromEntries(after.map((a) => [a.key, [a.completions, a.rarity]])), { big: [0, 0], hello: [1, 100] });
  t.same(await redisMentions(r, s.prefix, victim), [], 'nothing restored names them');

  // Erasing again answers the same; an id never seen is 404.
  b.clock.advance(60_000);
  const again = await b.call('DELETE', `/admin/v1/users/${victim}`);
  t.same([again.status, again.body], [erased.status, erased.body], 'a second erasure is idempotent');
  t.equal((await b.call('DELETE', '/admin/v1/users/never-was')).status, 404);

  // The same id afterwards is a new user: fresh totals, old idempotency keys unused.
  const fresh = await b.event('steps', { user: { id: victim }, value: 2 }, { headers: { 'Idempotency-Key': 'v-2026-03-10' } });
  t.equal(fresh.status, 201, 'not a replay of the erased user');
  t.equal(fresh.body.total, 2);
  t.same(fresh.body.achievements, [], 'achievements start over');
  const user = await b.call('GET', `/v1/users/${victim}`);
  t.equal(user.status, 200);
  t.equal(user.body.name, null);
  t.equal(user.body.created, new Date(b.clock.now()).toISOString());
  t.equal((await b.call('GET', `/v1/users/${victim}/points/xp`)).body.total, 0);
  await b.drain();
  const exported = await b.call('GET', `/admin/v1/users/${victim}/export`);
  t.equal(exported.body.events.length, 1, 'only the new event is kept');

  // Erasing the new user works as the first time did.
  const second = await b.call('DELETE', `/admin/v1/users/${victim}`);
  t.equal(second.status, 200);
  t.equal(second.body.erasedAt, new Date(b.clock.now()).toISOString());
  await b.drain();
  t.same(await postgresMentions(s.schema, victim), []);
});

t.test('bad user ids are 422', async (t) => {
  const s = await startServer(t);
  for (const id of ['x'.repeat(256), 'a%00b', 'tab%09']) {
    for (const path of [`/admin/v1/users/${id}`, `/admin/v1/users/${id}/export`]) {
      const method = path.endsWith('/export') ? 'GET' : 'DELETE';
      const r = await s.call(method, path);
      t.equal(r.status, 422, `${method} ${path.slice(0, 40)}`);
      t.type(r.body.error, 'string');
    }
  }
  t.equal((await s.call('DELETE', `/admin/v1/users/${'x'.repeat(255)}`)).status, 404, '255 characters are fine');
});

t.test('an export holds everything about the user, for their tenant only', async (t) => {
  const s = await startServer(t, { WEBHOOK_POLL_MS: '3600000' });
  const u = 'exported';
  await seed(t, s, u);
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] });
  const sent: { eventId: string; total: number }[] = [];
  for (const [i, day] of ['2026-03-10', '2026-03-11'].entries()) {
    s.clock.set(`${day}T09:00:00Z`);
    const r = await s.event('steps', { user: { id: u, name: 'Ex Ported', attributes: { team: 'blue' } }, value: 30 + i }, { headers: { 'Idempotency-Key': `e-${day}` } });
    t.equal(r.status, 201);
    sent.push(r.body);
  }
  await s.event('steps', { user: { id: 'someone-else' }, value: 5 });
  t.equal((await s.call('POST', '/v1/achievements/hello/complete', { body: { user: { id: u } } })).status, 201);
  await s.drain();

  const x = await s.call('GET', `/admin/v1/users/${u}/export`);
  t.equal(x.status, 200);
  const doc = x.body;
  t.match(doc.profile, { id: u, name: 'Ex Ported', attributes: { team: 'blue' } });
  t.same(doc.events.map((e: { id: string }) => e.id), sent.map((e) => e.eventId), 'every event, oldest first');
  t.same(doc.events.map((e: { total: number }) => e.total), sent.map((e) => e.total));
  t.same(doc.events.map((e: { idempotencyKey: string }) => e.idempotencyKey), ['e-2026-03-10', 'e-2026-03-11']);
  t.same(doc.metrics, [{ key: 'steps', name: 'Metric steps', total: sent[1]!.total }]);
  const pts = await s.call('GET', `/v1/users/${u}/points/xp?awards=100`);
  const xp = doc.points.find((p: { key: string }) => p.key === 'xp');
  t.equal(xp.total, pts.body.total);
  t.same(xp.awards.map((a: { id: string }) => a.id).sort(), pts.body.awards.map((a: { id: string }) => a.id).sort(), 'every award');
  t.ok(xp.awards.length > 0);
  t.same(doc.achievements.map((a: { key: string }) => a.key).sort(), ['big', 'hello']);
  t.equal(doc.streak.length, 2);
  t.same(doc.streak.history.filter((h: { frequency: string }) => h.frequency === 'daily').map((h: { periodStart: string; length: number }) => [h.periodStart, h.length]),
    [['2026-03-10', 1], ['2026-03-11', 2]]);
  t.same(doc.leaderboards.positions.find((p: { key: string }) => p.key === 'all'), { key: 'all', run: 0, group: [], rank: 1, value: sent[1]!.total });
  t.ok(doc.leaderboards.history.length >= 2, 'rank history');
  t.same(doc.boosts.map((b: { name: string }) => b.name), ['Just for them']);
  t.ok(doc.webhookDeliveries.length > 0, 'deliveries about them');
  for (const d of doc.webhookDeliveries) t.ok(JSON.stringify(d.payload).includes(u));
  t.notOk(JSON.stringify(doc).includes('someone-else'), 'nothing about anyone else');

  // Read-only and repeatable; scoped to the tenant; 404 for an unknown user.
  const y = await s.call('GET', `/admin/v1/users/${u}/export`);
  t.same({ ...y.body, exportedAt: null }, { ...doc, exportedAt: null });
  t.equal((await s.call('GET', `/admin/v1/users/${u}/export`, { tenant: 'other' })).status, 404);
  t.equal((await s.call('DELETE', `/admin/v1/users/${u}`, { tenant: 'other' })).status, 404);
  t.equal((await s.call('GET', '/admin/v1/users/nobody/export')).status, 404);
  t.equal((await s.call('GET', `/v1/users/${u}`)).status, 200, 'another tenant\'s erase touched nothing here');
});

t.test("records another flusher had read before the erasure are not written after it", async (t) => {
  const s = await startServer(t, { FLUSH_CLAIM_MS: '100' });
  await s.metrics(['steps']);
  const u = `late-${randomBytes(4).toString('hex')}`;
  t.equal((await s.event('steps', { user: { id: u }, value: 1 })).status, 201);
  await s.drain();
  await s.app.flusher.stop();
  t.equal((await s.event('steps', { user: { id: u }, value: 2 }, { headers: { 'Idempotency-Key': 'late' } })).status, 201);
  // Another process's flusher reads the record, then dies before writing it.
  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const read = (await r.xreadgroup('GROUP', 'flush', 'dead-consumer', 'COUNT', 10, 'STREAMS', stream, '>')) as [string, [string, string[]][]][];
  t.equal(read[0]![1].length, 1);
  // Long idle (as if it died an hour ago), so the next flush takes it over.
  await r.xclaim(stream, 'flush', 'dead-consumer', 0, read[0]![1][0]![0], 'IDLE', 3_600_000);

  t.equal((await s.call('DELETE', `/admin/v1/users/${u}`)).status, 200);
  await s.drain();
  t.equal(await r.xlen(stream), 0, 'the record was taken over and acknowledged');
  t.same(await postgresMentions(s.schema, u), [], 'but not written');
  t.equal((await s.call('GET', `/v1/users/${u}`)).status, 404);
  const again = await s.event('steps', { user: { id: u }, value: 5 }, { headers: { 'Idempotency-Key': 'late' } });
  t.same([again.status, again.body.total], [201, 5], 'a new user, whose key is unused');
});
