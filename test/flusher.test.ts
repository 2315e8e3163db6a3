import t from 'tap';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { redeliver, sharedRedis, startServer } from './helpers/harness';
import { FLUSH_GROUP } from '../src/redis/keys';
import { stateValues, streamVersion } from '../src/store/user-state';
import { LAST_CHANGE_FIELD } from '../src/domain/user-hash';
import { Batch, StreamEntry, writeBatch } from '../src/pipeline/flush-batch';
import { unpackedFields } from '../src/engine/change-record';
import { RECORD_FIELD as F, RECORD_KIND as K } from '../src/domain/change-record';

/** Write a batch as a flusher would, in a transaction of its own, committed. */
async function committed(db: Pool, tenantId: string, entries: StreamEntry[]): Promise<void> {
  const c = await db.connect();
  try {
    await c.query('BEGIN');
    await writeBatch(c, tenantId, new Batch(entries));
    await c.query('COMMIT');
  } finally {
    c.release();
  }
}

// At least once means a batch can arrive twice (a crash between commit and
// acknowledgement): the second time must change nothing in Postgres.
t.test('a replayed batch changes nothing', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop(); // this test flushes by hand, so it can see the records first
  const { m } = await s.metrics(['m']);
  const ach = (await s.call('POST', '/admin/v1/achievements', { body: [
    { key: 'one', name: 'One', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' },
    { key: 'hello', name: 'Hello', trigger: 'api', status: 'active' },
  ] })).body.created;
  const hello = ach.find((x: { key: string }) => x.key === 'hello');
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [
    { type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' },
    { type: 'achievement', achievementId: hello.id, points: 10, status: 'active' },
  ] }] });
  await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', status: 'active' }] });
  for (const u of ['a', 'b', 'c']) await s.event('m', { user: { id: u, name: u.toUpperCase() }, value: 3 });
  // An operation other than an event that pays points.
  t.equal((await s.call('POST', '/v1/achievements/hello/complete', { body: { user: { id: 'a' } } })).status, 201);

  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const records = await r.xrange(stream, '-', '+');
  t.equal(records.length, 4);
  await s.app.flusher.drain();
  t.equal(await r.xlen(stream), 0, 'acknowledged records are deleted');

  const snapshot = async () => {
    const q = (sql: string) => s.app.ctx.db.query(sql).then((x) => x.rows);
    return {
      events: await q('SELECT id, user_id, value::text, total::text FROM events ORDER BY id'),
      awards: await q('SELECT event_id, trigger_id, idx, awarded, total, ver FROM awards ORDER BY event_id, trigger_id'),
      ownRows: await q('SELECT event_id FROM points_awards'),
      ranks: await q('SELECT user_id, previous_rank, rank, value FROM leaderboard_events ORDER BY user_id, seq'),
      completions: await q('SELECT achievement_id, user_id FROM achievement_completions ORDER BY user_id'),
      users: await q('SELECT id, name FROM users ORDER BY id'),
      fields: (await q('SELECT user_id, state, recent FROM user_state ORDER BY user_id')).map((r) => [r.user_id, [...stateValues(r.state, r.recent)].sort()]),
    };
  };
  const once = await snapshot();
  t.equal(once.events.length, 3);
  t.equal(once.awards.length, 4, 'three from events, one from the completion');
  t.equal(once.ownRows.length, 1, "only the completion's award has a row of its own; an event keeps its awards in its row");
  t.equal(once.ranks.length, 3);
  t.equal(once.completions.length, 4);

  // The same records again, as a redelivery would bring them.
  await redeliver(r, stream, records);
  await s.app.flusher.drain();
  t.same(await snapshot(), once);

  // Stored records and a new one in one batch: only the new event and its award are added.
  await s.event('m', { user: { id: 'd', name: 'D' }, value: 3 });
  const [fresh] = await r.xrange(stream, '-', '+');
  await redeliver(r, stream, [...records, fresh!]);
  await s.app.flusher.drain();
  const mixed = await snapshot();
  t.equal(mixed.events.length, 4, 'the new event is stored, the others once');
  t.equal(mixed.awards.length, 5, "the new event's award is written");
  t.equal(mixed.completions.length, 5, "the new user's completion is written, the others once");
  t.same(mixed.events.filter((e: { user_id: string }) => e.user_id !== 'd'), once.events, 'the stored events are as they were');
  t.equal((await s.app.ctx.db.query('SELECT 1 FROM dead_letters')).rowCount, 0, 'no record was set aside');
});

// Two flushers may commit neighbouring batches in either order: a record
// older than what Postgres holds must not take a user's fields back.
t.test('a late batch never overwrites newer fields', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop();
  await s.metrics(['m']);
  await s.event('m', { user: { id: 'a', name: 'Old' }, value: 3 });
  // A long name keeps the stored state longer than the later groups: the late record's
  // fields would fit in front of recent rather than call for a fold.
  await s.event('m', { user: { id: 'a', name: 'New, a name longer than the next' }, value: 4 });
  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const [first] = await r.xrange(stream, '-', '+');
  await s.app.flusher.drain();
  const state = async () => {
    const { rows } = await s.app.ctx.db.query(`SELECT state, recent FROM user_state WHERE user_id = 'a'`);
    return Object.fromEntries(stateValues(rows[0].state, rows[0].recent));
  };
  t.equal((await state()).n, 'New, a name longer than the next');
  t.ok(Object.values(await state()).includes('7'), 'the total after both events is stored');
  // One more batch, leaving the name as it is, put beside the stored fields:
  // the late record meets a row with both columns, its name newer in state.
  await s.event('m', { user: { id: 'a' }, value: 5 });
  await s.app.flusher.drain();
  const both = await s.app.ctx.db.query(`SELECT recent FROM user_state WHERE user_id = 'a'`);
  t.not(both.rows[0].recent, null, 'the third batch went in front of recent');
  const newest = await state();
  t.equal(newest.n, 'New, a name longer than the next');

  // The first record again, under its own (older) id: a new stream may start there.
  await r.del(stream);
  await r.xadd(stream, first![0], ...first![1]);
  await r.xgroup('CREATE', stream, FLUSH_GROUP, '0');
  await s.app.flusher.drain();
  t.equal(await r.xlen(stream), 0, 'the late record was flushed');
  t.same(await state(), newest);
  // SQL reads take a field from recent before state: the late record's
  // groups must not have been put there (store/user-state.ts).
  const { rows } = await s.app.ctx.db.query(
    `SELECT f, user_state_field(state, recent, f) AS v FROM user_state, unnest($1::text[]) AS f WHERE user_id = 'a'`,
    [Object.keys(newest)],
  );
  t.same(Object.fromEntries(rows.map((x) => [x.f, x.v])), newest, 'read in SQL too');
});

// A batch writes the fields it changed in front of the earlier batches'
// beside the stored hash, folded in once they outgrow it: what Postgres
// holds is the hash all along, read in Node or field by field in SQL (the
// points histograms, experiments), where a field changed twice since the
// fold is read at its newest.
t.test('the stored fields are the user hash after every batch', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop();
  await s.metrics(['m1', 'm2', 'm3']);
  const stored = async () => {
    const { rows } = await s.app.ctx.db.query(`SELECT state, recent FROM user_state WHERE user_id = 'a'`);
    return { fields: Object.fromEntries(stateValues(rows[0].state, rows[0].recent)), recent: rows[0].recent !== null };
  };
  const hash = async () => {
    const h = await s.app.ctx.redis.hgetall(s.app.ctx.keys.tenant(0).user('a'));
    delete h[LAST_CHANGE_FIELD];
    return h;
  };
  const recent: boolean[] = [];
  for (const [i, metric] of ['m1', 'm2', 'm2', 'm1', 'm3', 'm3', 'm1', 'm2', 'm2', 'm1'].entries()) {
    // A name ending as a group boundary begins (store/user-state.ts newestVersion).
    await s.event(metric, { user: { id: 'a', name: i === 3 ? 'Renamed],[' : 'A' }, value: i + 1 });
    await s.app.flusher.drain();
    const now = await stored();
    recent.push(now.recent);
    const h = await hash();
    t.same(now.fields, h, `after batch ${i + 1}`);
    const { rows } = await s.app.ctx.db.query(
      `SELECT f, user_state_field(state, recent, f) AS v FROM user_state, unnest($1::text[]) AS f WHERE user_id = 'a'`,
      [Object.keys(h)],
    );
    t.same(Object.fromEntries(rows.map((r) => [r.f, r.v])), h, `after batch ${i + 1}, read in SQL`);
  }
  t.ok(recent.some((r, i) => i > 0 && recent[i - 1] && !r), 'batches wrote their changes beside the hash, then folded them in');
});

// An event's record is packed into one field, and names the fields it
// changed as an array the flusher stores as it is; records written before
// (field by field, and before that with an object of changed fields) may
// still wait in a stream after an upgrade. Several records of one user in
// one batch each write their group (a field in two takes the newer).
t.test('records of every form, several of a user in one batch, store the user hash', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop();
  await s.metrics(['m1', 'm2']);
  for (const [i, metric] of ['m1', 'm2', 'm1', 'm2'].entries()) await s.event(metric, { user: { id: 'a', name: `A${i}` }, value: i + 1 });
  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const records = await r.xrange(stream, '-', '+');
  t.equal(records.length, 4);
  t.ok(records.every(([, f]) => f.length === 2 && f[0] === K.event), 'an event is one field');
  // The third record field by field, as the previous version wrote it; the
  // last one so and with its changed fields as {field: value, deleted: false}.
  const [third, fieldByField] = [records[2]![0], unpackedFields(records[2]![1])];
  const [fourth, flat] = [records[3]![0], unpackedFields(records[3]![1])];
  t.equal(fieldByField.length, 22, 'unpacked: eleven fields');
  const uf = flat.indexOf(F.userFields) + 1;
  const pairs = JSON.parse(flat[uf]!) as (string | null)[];
  t.ok(Array.isArray(pairs) && pairs.length > 0, 'a record names its changed fields as an array');
  const old: Record<string, string | false> = {};
  for (let i = 0; i < pairs.length; i += 2) old[pairs[i]!] = pairs[i + 1] ?? false;
  old.gone = false;
  flat[uf] = JSON.stringify(old);
  await r.del(stream);
  for (const [rid, f] of records) await r.xadd(stream, rid, ...(rid === fourth ? flat : rid === third ? fieldByField : f));
  await r.xgroup('CREATE', stream, FLUSH_GROUP, '0');
  await s.app.flusher.drain();
  t.equal(await r.xlen(stream), 0, 'all four flushed in one go');
  const h = await s.app.ctx.redis.hgetall(s.app.ctx.keys.tenant(0).user('a'));
  delete h[LAST_CHANGE_FIELD];
  const { rows } = await s.app.ctx.db.query(`SELECT state, recent FROM user_state WHERE user_id = 'a'`);
  t.same(Object.fromEntries(stateValues(rows[0].state, rows[0].recent)), h, 'read in Node');
  const sql = await s.app.ctx.db.query(
    `SELECT f, user_state_field(state, recent, f) AS v FROM user_state, unnest($1::text[]) AS f WHERE user_id = 'a'`,
    [[...Object.keys(h), 'gone']],
  );
  t.same(Object.fromEntries(sql.rows.map((x) => [x.f, x.v])), { ...h, gone: null }, 'read in SQL, the deleted field absent');
});

// A read may flush records a consumer holds, and a consumer may claim
// another's: two flushers can write the same records at once. The second
// waits on the tenant's flush mark the first holds, and once that commits
// finds everything stored: nothing twice, nothing set aside as unwritable.
for (const made of ['with the database', 'since, without a mark yet'] as const) {
  t.test(`the same records flushed by two flushers at once are stored once (a tenant made ${made})`, async (t) => {
    const s = await startServer(t);
    await s.app.flusher.stop();
    // A tenant made after the migrations has no flush mark row: both flushers find none, and the second waits on the first's insert of it.
    const tenant = made === 'with the database' ? undefined : 'other';
    if (tenant) t.equal((await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: tenant, name: 'Other' }] })).status, 201);
    const { m } = await s.metrics(['m'], tenant);
    await s.call('POST', '/admin/v1/achievements', { tenant, body: [{ key: 'one', name: 'One', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
    // An award whose kind (system, trigger) neither flusher has stored yet: both insert it.
    await s.call('POST', '/admin/v1/points', { tenant, body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
    // One record: a batch of more would be halved on the error, and its halves written.
    t.equal((await s.event('m', { user: { id: 'a' }, value: 2 }, { tenant })).status, 201);
    const db = s.app.ctx.db;
    const { id: tenantId, slot } = (await db.query('SELECT id, slot FROM tenants WHERE customer_id IS NOT DISTINCT FROM $1', [tenant ?? null])).rows[0] as { id: string; slot: number };
    t.equal((await db.query('SELECT 1 FROM flush_marks WHERE tenant_id = $1', [tenantId])).rowCount, tenant ? 0 : 1);
    const r = await sharedRedis(t);
    const stream = s.app.ctx.keys.tenant(slot).stream;
    const records = (await r.xrange(stream, '-', '+')) as StreamEntry[];

    // The other flusher: the same batch, written and not yet committed.
    const other = await db.connect();
    t.teardown(() => other.release());
    await other.query('BEGIN');
    await writeBatch(other, tenantId, new Batch(records));
    const pid = (await other.query('SELECT pg_backend_pid() AS p')).rows[0].p as number;
    const drained = s.app.flusher.drain();
    // Waiting on a transaction id the other one holds (its own, or a savepoint's).
    const blocked = async () =>
      (await db.query(
        `SELECT 1 FROM pg_locks w JOIN pg_locks h ON h.locktype = 'transactionid' AND h.transactionid = w.transactionid AND h.granted AND h.pid = $1
         WHERE w.locktype = 'transactionid' AND NOT w.granted`,
        [pid],
      )).rowCount! > 0;
    while (!(await blocked())) await new Promise((res) => setImmediate(res));
    await other.query('COMMIT');
    await drained;

    const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenantId])).rows[0].n);
    t.equal(await count('events'), 1);
    t.equal(await count('achievement_completions'), 1);
    t.equal(await count('award_kinds'), 1, "the award's kind is stored once");
    t.same((await db.query('SELECT awarded::int, total::int FROM awards WHERE tenant_id = $1', [tenantId])).rows, [{ awarded: 4, total: 4 }], 'and the award once, read through it');
    t.equal(await count('dead_letters'), 0, 'no record was set aside');
    t.equal(await r.xlen(stream), 0, 'the records were acknowledged');
  });
}

// Two consumers' batches may commit newest first: the older one's events are
// then below the flush mark, looked up, and stored once like the rest.
t.test('batches committed newest first store every event once', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop();
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
  for (const u of ['a', 'b', 'c', 'd']) await s.event('m', { user: { id: u }, value: 3 });
  const r = await sharedRedis(t);
  const records = (await r.xrange(s.app.ctx.keys.tenant(0).stream, '-', '+')) as StreamEntry[];
  const db = s.app.ctx.db;
  const tenantId = (await db.query('SELECT id FROM tenants')).rows[0].id as string;
  const write = (entries: StreamEntry[]) => committed(db, tenantId, entries);
  await write(records.slice(2)); // the newer half first
  await write(records.slice(0, 3)); // then the older half, with one of the newer again
  await s.app.flusher.drain(); // and all four once more, as the group still holds them

  const rows = (await db.query('SELECT user_id, value::int FROM events ORDER BY user_id')).rows;
  t.same(rows, ['a', 'b', 'c', 'd'].map((u) => ({ user_id: u, value: 3 })), 'each event once');
  t.same((await db.query('SELECT user_id, awarded::int FROM awards ORDER BY user_id')).rows, ['a', 'b', 'c', 'd'].map((u) => ({ user_id: u, awarded: 6 })), 'each award once');
  t.equal((await db.query('SELECT ver::text FROM flush_marks WHERE tenant_id = $1', [tenantId])).rows[0].ver, streamVersion(records[3]![0]), 'the mark is the newest stored');
});

// The usual batch, newer than the tenant's flush mark, is copied in without
// a lookup; brought again, it is at or below the mark and looked up.
t.test('a batch copied in plainly and then redelivered is stored once', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop();
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
  for (const u of ['a', 'b', 'c']) await s.event('m', { user: { id: u }, value: 3 });
  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const records = (await r.xrange(stream, '-', '+')) as StreamEntry[];
  const db = s.app.ctx.db;
  const tenantId = (await db.query('SELECT id FROM tenants')).rows[0].id as string;
  await committed(db, tenantId, records.slice(0, 1)); // the mark is set
  await committed(db, tenantId, records.slice(1)); // newer than it: copied in plainly
  await redeliver(r, stream, records);
  await s.app.flusher.drain();
  t.same((await db.query('SELECT user_id FROM events ORDER BY user_id')).rows.map((x) => x.user_id), ['a', 'b', 'c'], 'each event once');
  t.same((await db.query('SELECT user_id FROM awards ORDER BY user_id')).rows.map((x) => x.user_id), ['a', 'b', 'c'], 'each award once');
});

// A streak period is recorded again when a later call settles it otherwise
// (a freeze spent on it, a restore): the later record wins in Postgres.
t.test('a later record of a streak period rewrites it, beside new ones', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop();
  const db = s.app.ctx.db;
  const tenantId = (await db.query('SELECT id FROM tenants')).rows[0].id as string;
  const record = (id: string, periods: object[]): StreamEntry =>
    [id, [F.kind, K.user, F.event, randomUUID(), F.user, 'a', F.at, '1790000000000', F.date, '2026-09-21', F.periods, JSON.stringify(periods)]];
  const write = (entries: StreamEntry[]) => committed(db, tenantId, entries);
  await write([record('1-0', [{ f: 'd', p: 10, l: 1, fr: 0, pa: 0 }, { f: 'd', p: 11, l: 2, fr: 0, pa: 0 }])]);
  await write([record('2-0', [{ f: 'd', p: 11, l: 2, fr: 1, pa: 0 }]), record('2-1', [{ f: 'd', p: 10, l: 1, fr: 0, pa: 0 }, { f: 'd', p: 12, l: 3, fr: 0, pa: 1 }])]);
  const { rows } = await db.query('SELECT period, length, used_freeze, used_pause FROM streak_periods WHERE user_id = $1 ORDER BY period', ['a']);
  t.same(rows, [
    { period: 10, length: 1, used_freeze: false, used_pause: false },
    { period: 11, length: 2, used_freeze: true, used_pause: false },
    { period: 12, length: 3, used_freeze: false, used_pause: true },
  ]);
});
