import t from 'tap';
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { startServer, TestServer } from './helpers/harness';
import { migrate, DEFAULT_TENANT_ID } from '../src/store/migrations';
import { decodeState, mergeFields } from '../src/store/user-state';
import { firstEventDay, openTriggerPoints } from '../src/store/activity-record';
import { achievementCompletions, eventsPerDay, streakLengthCounts } from '../src/store/analytics';
import { summarizeTimeIndexes } from '../src/store/time-indexes';
import { latestLengths } from '../src/store/streak-periods';
import { recentAwards } from '../src/store/points-awards';
import { awardId } from '../src/domain/points';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel';
/** The schema version before the events table was partitioned by month. */
const BEFORE_PARTITIONS = 19;

/** Rows per partition of events (partition name -> rows matching `where`). */
async function perPartition(s: TestServer, where = 'true', args: unknown[] = []): Promise<Record<string, number>> {
  const db = new Pool({ connectionString: DATABASE_URL, max: 1, options: `-c search_path=${s.schema}` });
  try {
    const { rows } = await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
    );
    const out: Record<string, number> = {};
    for (const { name } of rows) out[name] = Number((await db.query(`SELECT count(*) AS n FROM ${name} WHERE ${where}`, args)).rows[0].n);
    return out;
  } finally {
    await db.end();
  }
}

async function sql<T = any>(s: TestServer, text: string, args: unknown[] = []): Promise<T[]> {
  const db = new Pool({ connectionString: DATABASE_URL, max: 1, options: `-c search_path=${s.schema}` });
  try {
    return (await db.query(text, args)).rows as T[];
  } finally {
    await db.end();
  }
}

/** A schema of its own migrated up to `version`, dropped after the test; `db` (one connection) has it on its search path. */
async function schemaAt(t: { teardown: (fn: () => Promise<void>) => void }, version: number): Promise<{ db: Pool; schema: string }> {
  const schema = `test_up_${randomBytes(5).toString('hex')}`;
  const db = new Pool({ connectionString: DATABASE_URL, max: 1 });
  t.teardown(async () => {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  });
  await migrate(db, schema, version);
  await db.query(`SET search_path TO "${schema}"`);
  return { db, schema };
}

const summary = (s: TestServer, user: string) =>
  s.call('GET', `/v1/users/${user}/metrics/steps/event-summary?aggregation=daily&startDate=2026-01-28&endDate=2026-03-12`).then((r) => r.body);
const pointsSummary = (s: TestServer, user: string) =>
  s.call('GET', `/v1/users/${user}/points/xp/event-summary?aggregation=daily&startDate=2026-01-28&endDate=2026-03-12`).then((r) => r.body);

/** XP paying 2 points a step (the awards an event keeps in its row). */
async function xpOnSteps(s: TestServer, tenant?: string): Promise<void> {
  const metrics = await s.call('GET', '/admin/v1/metrics', { tenant });
  const steps = metrics.body.find((m: { key: string }) => m.key === 'steps');
  const made = await s.call('POST', '/admin/v1/points', {
    tenant, body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: steps.id, metricThreshold: 1, points: 2, status: 'active' }] }],
  });
  if (made.status !== 200 && made.status !== 201) throw new Error(`points system not made: ${JSON.stringify(made.body)}`);
}

t.test('months are partitions: made ahead at start, events land in theirs, a stray row moves into its month', async (t) => {
  const s = await startServer(t);
  await s.metrics(['steps']);
  const made = Object.keys(await perPartition(s));
  t.same(made, ['events_202602', 'events_202603', 'events_202604', 'events_202605', 'events_default'], 'the month before, this one and two ahead, and the default');
  await s.event('steps', { user: { id: 'u1' }, value: 3 });
  s.clock.set('2025-11-20T10:00:00Z'); // no partition for that month
  await s.event('steps', { user: { id: 'u1' }, value: 4 });
  await s.drain();
  t.match(await perPartition(s), { events_202603: 1, events_default: 1 }, 'a month without a partition lands in the default one');
  await s.app.scheduler.runOnce();
  t.match(await perPartition(s), { events_202511: 1, events_202603: 1, events_default: 0 }, 'the scheduler made its month and moved the row');
  const indexes = await sql<{ def: string }>(s, `SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = 'events'::regclass ORDER BY 1`);
  t.match(indexes.map((k) => k.def), [/USING brin \(occurred_at\)/, /USING btree \(tenant_id, user_id, metric_id, local_date\)/],
    'its B-tree leads with the tenant; time windows go through a BRIN summary');
  t.notOk(indexes.some((k) => / UNIQUE /.test(k.def)), 'no unique key: the flush mark stores each event once');
});

t.test('EVENT_RETENTION_DAYS drops whole months past the window; summaries and charts answer as before', async (t) => {
  const s = await startServer(t, { EVENT_RETENTION_DAYS: '30' });
  await s.metrics(['steps']);
  await xpOnSteps(s);
  const days = ['2026-02-03T09:00:00Z', '2026-02-03T23:30:00Z', '2026-02-20T12:00:00Z', '2026-03-02T08:00:00Z', '2026-03-10T12:00:00Z'];
  for (const [i, at] of days.entries()) {
    s.clock.set(at);
    await s.event('steps', { user: { id: 'u1', tz: 'Asia/Tokyo' }, value: 10 + i });
    await s.event('steps', { user: { id: 'u2' }, value: 1 });
  }
  await s.drain();
  const charts = () => Promise.all(['events', 'active-users'].map((n) => s.call('GET', `/admin/v1/analytics/${n}?from=2026-02-01&to=2026-03-12`).then((r) => r.body)));
  // A year in review's totals and changes (its percentiles come from the scheduler's refresh).
  const year = async (user: string) => {
    const y = (await s.call('GET', `/v1/users/${user}/wrapped?year=2026`)).body.activity.entireYear;
    return [y.metrics.steps, y.points.xp].map((x: { currentTotal: number; changeThisPeriod: number }) => [x.currentTotal, x.changeThisPeriod]);
  };
  const before = { u1: await summary(s, 'u1'), u2: await summary(s, 'u2'), charts: await charts(), xp1: await pointsSummary(s, 'u1'), xp2: await pointsSummary(s, 'u2'), year: await year('u1') };
  t.equal(before.charts[0].length > 0, true);
  t.equal(before.xp1.at(-1).total, 2 * (10 + 11 + 12 + 13 + 14), 'the points summary adds up the awards kept in the events');

  s.clock.set('2026-03-31T12:00:00Z'); // 30 days back is 03-01: February is wholly past
  await s.app.scheduler.runOnce();
  const left = await perPartition(s);
  t.notOk('events_202602' in left, "February's partition is dropped");
  t.equal(left.events_202603, 4, 'March is kept');
  t.same(await sql(s, `SELECT count(*)::int AS n FROM events WHERE occurred_at < '2026-03-01'`), [{ n: 0 }], 'no raw event of February is left');
  t.same(await summary(s, 'u1'), before.u1, "a user's daily summary (local dates across the month's edge) is the same");
  t.same(await summary(s, 'u2'), before.u2);
  t.same(await pointsSummary(s, 'u1'), before.xp1, "a user's points summary is the same (the dropped awards' daily sums)");
  t.same(await pointsSummary(s, 'u2'), before.xp2);
  t.same(await year('u1'), before.year, "a user's year in review counts the dropped month's steps and points");
  t.same(await charts(), before.charts, 'the analytics charts are the same');
  const again = await s.call('GET', '/v1/users/u1/metrics/steps/event-summary?aggregation=monthly&startDate=2026-02-01&endDate=2026-03-31');
  t.same(again.body.map((p: { change: number }) => p.change), [10 + 11 + 12, 13 + 14], 'monthly changes too');
});

t.test('an erased user leaves nothing in any partition; a removed tenant empties its rows from every partition', async (t) => {
  const s = await startServer(t, { EVENT_RETENTION_DAYS: '20' });
  await s.metrics(['steps']);
  await xpOnSteps(s);
  const tenant = (await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] })).body.created[0];
  await s.metrics(['steps'], 'acme');
  await xpOnSteps(s, 'acme');
  for (const at of ['2026-02-10T10:00:00Z', '2026-03-10T10:00:00Z', '2026-06-20T10:00:00Z']) {
    s.clock.set(at);
    await s.event('steps', { user: { id: 'gone' }, value: 5 });
    await s.event('steps', { user: { id: 'kept' }, value: 5 });
    await s.event('steps', { user: { id: 'gone' }, value: 5 }, { tenant: 'acme' });
  }
  await s.drain();
  s.clock.set('2026-03-25T10:00:00Z');
  await s.app.scheduler.runOnce(); // February folds into event_days; June waits in the default partition
  t.equal((await sql(s, `SELECT count(*)::int AS n FROM event_days WHERE user_id = 'gone'`))[0].n, 2, 'daily sums of the dropped month, both tenants');
  t.match(await perPartition(s), { events_202606: 3, events_default: 0 }, 'a month beyond those made ahead, made for its rows');
  const exported = await s.call('GET', '/admin/v1/users/gone/export');
  t.same(exported.body.eventDays, [{ metric: 'steps', date: '2026-02-10', events: 1, value: 5 }], "the export holds the dropped month's daily sums");
  t.same(exported.body.pointsDays, [{ points: 'xp', date: '2026-02-10', awarded: 10 }], "and its awards' daily sums");
  t.same(exported.body.points[0].awards.length, 2, 'the awards kept with the remaining events');

  t.equal((await s.call('DELETE', '/admin/v1/users/gone')).status, 200);
  const gone = await perPartition(s, `tenant_id = $1 AND user_id = 'gone'`, [DEFAULT_TENANT_ID]);
  t.ok(Object.values(gone).every((n) => n === 0), `no row of the user in any partition: ${JSON.stringify(gone)}`);
  t.same(await sql(s, `SELECT count(*)::int AS n FROM event_days WHERE tenant_id = $1 AND user_id = 'gone'`, [DEFAULT_TENANT_ID]), [{ n: 0 }], 'nor in the daily sums');
  t.same(await sql(s, `SELECT count(*)::int AS n FROM points_days WHERE tenant_id = $1 AND user_id = 'gone'`, [DEFAULT_TENANT_ID]), [{ n: 0 }], "nor in the points' daily sums");
  t.ok(Object.values(await perPartition(s, `user_id = 'kept'`)).some((n) => n > 0), 'other users keep theirs');

  t.equal((await s.call('DELETE', `/admin/v1/tenants?ids=${tenant.id}`)).status, 200);
  const left = await perPartition(s, 'tenant_id = $1', [tenant.id]);
  t.ok(Object.values(left).every((n) => n === 0), `no row of the removed tenant in any partition: ${JSON.stringify(left)}`);
  t.same(await sql(s, 'SELECT count(*)::int AS n FROM event_days WHERE tenant_id = $1', [tenant.id]), [{ n: 0 }]);
  t.same(await sql(s, 'SELECT count(*)::int AS n FROM points_days WHERE tenant_id = $1', [tenant.id]), [{ n: 0 }]);
});

t.test('a database written before the partitions is migrated by start without loss', async (t) => {
  const schema = `test_up_${randomBytes(5).toString('hex')}`;
  const db = new Pool({ connectionString: DATABASE_URL, max: 1 });
  await migrate(db, schema, BEFORE_PARTITIONS);
  // What the previous version wrote: a metric, a user, events of two months (one with an idempotency key).
  const metric = randomUUID();
  await db.query(`SET search_path TO "${schema}"`);
  await db.query(`INSERT INTO metrics (id, tenant_id, slot, key, name, unit_type, units, created, updated) VALUES ($1, $2, 1, 'steps', 'Steps', 'number', '', now(), now())`, [metric, DEFAULT_TENANT_ID]);
  await db.query(`UPDATE tenants SET seq = 1, config_version = 2`);
  await db.query(`INSERT INTO users (tenant_id, id, tz, created, updated) VALUES ($1, 'old', 'UTC', '2026-01-05', '2026-03-09')`, [DEFAULT_TENANT_ID]);
  const old = [['2026-01-05T10:00:00Z', 4, 4, null], ['2026-02-14T10:00:00Z', 6, 10, 'key-1'], ['2026-03-09T10:00:00Z', 1, 11, null]] as const;
  for (const [at, v, total, ik] of old) {
    await db.query(
      `INSERT INTO events (id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at, idempotency_key) VALUES ($1, $2, 'old', $3, $4, $5, $6::timestamptz::date, $6, $7)`,
      [randomUUID(), DEFAULT_TENANT_ID, metric, v, total, at, ik],
    );
  }
  await db.query(`INSERT INTO flushed_operations (id, tenant_id) VALUES ($1, $2)`, [randomUUID(), DEFAULT_TENANT_ID]);
  await db.query('RESET search_path');

  const s = await startServer(t, { DATABASE_SCHEMA: schema });
  t.teardown(async () => {
    await s.app.close();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  });
  t.match(await perPartition(s), { events_202601: 1, events_202602: 1, events_202603: 1, events_default: 0 }, 'each old row in its month');
  const listed = (await s.call('GET', '/admin/v1/users/old/events')).body;
  t.same(listed.map((e: { value: number }) => e.value), [1, 6, 4], "the user's events, newest first");
  const chart = await s.call('GET', '/admin/v1/analytics/events?from=2026-01-01&to=2026-03-31');
  t.same(chart.body.map((p: { date: string; total: number }) => [p.date, p.total]), [['2026-01-05', 4], ['2026-02-14', 6], ['2026-03-09', 1]], 'the analytics read them');
  await s.event('steps', { user: { id: 'old' }, value: 2 });
  await s.drain();
  t.equal((await perPartition(s)).events_202603, 2, 'a new event joins them');
  t.equal((await sql(s, 'SELECT count(*)::int AS n FROM flushed_operations'))[0].n, 1, 'stored operations kept under their new key');
});

t.test('ids, keys and attributes with quotes, backslashes, tabs, line breaks, braces and commas, or spelled NULL, are stored as sent', async (t) => {
  const s = await startServer(t);
  const { steps } = await s.metrics(['steps']);
  await s.attributes([{ key: 'note', type: 'event' }]);
  for (const [path, body] of [
    ['/admin/v1/points', [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: steps!.id, metricThreshold: 1, points: 2, status: 'active' }] }]],
    ['/admin/v1/leaderboards', [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: steps!.id, start: '2026-01-01', status: 'active' }]],
  ] as const) t.equal((await s.call('POST', path, { body })).status, 201);
  // Each of these means something to COPY's text format (which the events and rank history are written in), to JSON or to an array literal.
  const odd = ['we"ird \\ {id}, x', 'NULL', 'null', ' lead', 'tab\there', 'two\nlines\r', 'back\\nslash \\N', '\\.'];
  for (const [i, u] of odd.entries()) {
    const r = await s.event('steps', { user: { id: u }, value: i + 1, attributes: { note: `${u}\t"${i}"` } }, { headers: { 'Idempotency-Key': `k "${i}"\t\\ {,}` } });
    t.equal(r.status, 201, `user ${JSON.stringify(u)}`);
  }
  await s.drain();
  const rows = await sql<{ user_id: string; idempotency_key: string; value: string; attributes: Record<string, string>; points: string }>(s,
    `SELECT user_id, idempotency_key, value::text, attributes, split_part(awards, ' ', 4) AS points FROM events ORDER BY value`);
  t.same(rows.map((r) => [r.user_id, r.idempotency_key, r.value, r.attributes, r.points]),
    odd.map((u, i) => [u, `k "${i}"\t\\ {,}`, String(i + 1), { note: `${u}\t"${i}"` }, String(2 * (i + 1))]));
  const ranks = await sql<{ user_id: string }>(s, 'SELECT user_id FROM leaderboard_events ORDER BY seq');
  t.same(ranks.map((r) => r.user_id), odd, "each user's rank history under their id");
});

t.test('user_state written as jsonb by the previous version is migrated with every value and version', async (t) => {
  const { db, schema } = await schemaAt(t, 26); // the last step before user_state was packed (migrations/027)
  // Field -> [value or null (deleted), version], versions wider than a double holds exactly.
  const old = {
    c: ['1795705435215', '1795705435216000000'], tz: ['Europe/London', '1795705435216000000'], m1: ['33', '1795705476583000002'],
    n: [null, '1795705476583000002'], 'a:team': ['say "hi" \\ [x]', '1795705450732000003'],
  };
  const json = `{${Object.entries(old).map(([f, [v, ver]]) => `${JSON.stringify(f)}:[${JSON.stringify(v)},${ver}]`).join(',')}}`;
  await db.query(`INSERT INTO user_state (tenant_id, user_id, fields, ver) VALUES ($1, 'u1', $2::jsonb, 1795705476583000002), ($1, 'u2', '{}', NULL)`, [DEFAULT_TENANT_ID, json]);
  await migrate(db, schema);
  const rows = (await db.query(`SELECT user_id, state, user_state_field(state, recent, 'tz') AS tz, user_state_field(state, recent, 'n') AS n FROM user_state ORDER BY user_id`)).rows;
  t.same(Object.fromEntries(decodeState(rows[0].state)), old, 'every field with its value and exact version');
  t.same([rows[0].tz, rows[0].n], ['Europe/London', null], 'one field read in SQL; a deleted one reads as absent');
  t.same([...decodeState(rows[1].state)], [], 'an empty hash stays empty');
  // A record older than a field keeps it; a newer one replaces it.
  const fields = decodeState(rows[0].state);
  mergeFields(fields, new Map([['m1', ['30', '1795705450732000003']], ['tz', ['UTC', '1795705476583000003']]]));
  t.same([fields.get('m1')![0], fields.get('tz')![0]], ['33', 'UTC']);
});

t.test('history written before its time indexes became BRIN is still found by the analytics and rankings that read it by time', async (t) => {
  const { db, schema } = await schemaAt(t, 28); // the last step with B-tree time indexes (migrations/029)
  const [system, trigger, achievement] = [randomUUID(), randomUUID(), randomUUID()];
  await db.query(
    `INSERT INTO points_awards (id, tenant_id, user_id, system_id, trigger_id, awarded, total, at, local_date)
     VALUES ($2, $1, 'u1', $3, $4, 5, 5, '2026-03-01T10:00:00Z', '2026-03-01'), ($5, $1, 'u2', $3, $4, -2, 7, '2026-03-02T10:00:00Z', '2026-03-02')`,
    [DEFAULT_TENANT_ID, randomUUID(), system, trigger, randomUUID()],
  );
  await db.query(`INSERT INTO achievements (id, tenant_id, slot, key, name, status, trigger, created, updated) VALUES ($2, $1, 1, 'a', 'A', 'active', 'api', now(), now())`, [DEFAULT_TENANT_ID, achievement]);
  await db.query(`INSERT INTO achievement_completions (tenant_id, achievement_id, user_id, achieved_at) VALUES ($1, $2, 'u1', '2026-03-01T10:00:00Z'), ($1, $2, 'u2', '2026-03-05T10:00:00Z')`,
    [DEFAULT_TENANT_ID, achievement]);
  await db.query(`INSERT INTO streak_periods (tenant_id, user_id, frequency, period, length, used_freeze, used_pause)
    VALUES ($1, 'u1', 'd', 100, 1, false, false), ($1, 'u1', 'd', 101, 2, false, false), ($1, 'u2', 'd', 101, 1, false, false), ($1, 'u2', 'w', 14, 1, false, false)`,
    [DEFAULT_TENANT_ID]);
  await migrate(db, schema);
  // Their block ranges summarized as autovacuum or the hourly upkeep would, and the planner
  // steered off whole-table reads (this checks the answers after the upgrade, not the plans).
  await db.query(`SELECT brin_summarize_new_values('points_awards_by_time'), brin_summarize_new_values('streak_periods_by_period')`);
  await db.query('SET enable_seqscan = off');
  // The daily rollups and the open days' analytics read awards by time.
  t.same(await openTriggerPoints(db, DEFAULT_TENANT_ID, new Date('2026-03-02T00:00:00Z'), new Date('2026-03-03T00:00:00Z'), null),
    [{ date: '2026-03-02', systemId: system, triggerId: trigger, issued: 0, consumed: 2, awards: 1 }]);
  t.same(await achievementCompletions(db, DEFAULT_TENANT_ID, new Date('2026-03-02T00:00:00Z'), new Date('2026-03-10T00:00:00Z')),
    [{ achievementId: achievement, key: 'a', name: 'A', completions: 1, completedBy: 2 }]);
  t.same(await streakLengthCounts(db, DEFAULT_TENANT_ID, 'd', 100, 101), [{ length: 1, users: 1 }, { length: 2, users: 1 }]);
  t.same(await latestLengths(db, DEFAULT_TENANT_ID, 'd'), [{ userId: 'u1', length: 2 }, { userId: 'u2', length: 1 }]);
});

t.test('events stored before the flush marks: their first day is kept, and a time window finds them through the BRIN summary', async (t) => {
  const { db, schema } = await schemaAt(t, 34); // the last step with events' unique key (migrations/035)
  const metric = randomUUID();
  // The default tenant's events: one stored before events had a version, one after (a version far ahead);
  // another tenant's, all stored before; a third tenant has none.
  const [other, empty] = [randomUUID(), randomUUID()];
  for (const [id, slot] of [[other, 1], [empty, 2]] as const) {
    await db.query(`INSERT INTO tenants (id, slot, name, created, updated) VALUES ($1, $2, 'T', now(), now())`, [id, slot]);
  }
  const stored = [[DEFAULT_TENANT_ID, '2026-01-05T10:00:00Z', 4, null], [DEFAULT_TENANT_ID, '2026-03-02T10:00:00Z', 6, '2500000000000000000'], [other, '2026-02-01T10:00:00Z', 1, null]] as const;
  for (const [tenant, at, v, ver] of stored) {
    await db.query(
      `INSERT INTO events (id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at, ver) VALUES ($1, $2, 'old', $3, $4, $4, $5::timestamptz::date, $5, $6)`,
      [randomUUID(), tenant, metric, v, at, ver],
    );
  }
  const before = BigInt(Date.now()) * 1_000_000n;
  await migrate(db, schema);
  const marks = new Map((await db.query<{ tenant_id: string; ver: string | null }>('SELECT tenant_id, ver::text FROM flush_marks')).rows.map((r) => [r.tenant_id, r.ver]));
  t.equal(marks.get(DEFAULT_TENANT_ID), '2500000000000000000', 'the mark is the newest version stored');
  t.ok(BigInt(marks.get(other)!) > before, "without versions, past any record's in the streams then: those records are looked up when they come");
  t.equal(marks.get(empty), null, 'a tenant without events: its first batch looks its events up');
  t.equal(await firstEventDay(db, DEFAULT_TENANT_ID), '2026-01-05', "the tenant's first day");
  // Summarized as the hourly upkeep does (each month's index), and the planner steered off whole-table reads.
  await summarizeTimeIndexes(db);
  await db.query('SET enable_seqscan = off');
  const day = { day: '2026-03-02', at: new Date('2026-03-02T00:00:00Z') };
  t.same(await eventsPerDay(db, { tenantId: DEFAULT_TENANT_ID, from: '2026-03-02', end: new Date('2026-03-03T00:00:00Z') }, day, null),
    [{ date: '2026-03-02', metricId: metric, events: 1, total: 6, activeUsers: 1 }]);
  const plan = (await db.query(`EXPLAIN SELECT count(*) FROM events WHERE occurred_at >= '2026-03-02' AND occurred_at < '2026-03-03'`)).rows.map((r) => r['QUERY PLAN']).join('\n');
  t.match(plan, /Bitmap Index Scan on events_\w+_occurred_at_idx/, 'the window read through the BRIN index');
});

t.test("awards written before events kept their own, in the events' rows before their kinds were kept apart, and as arrays, are read with the new ones, oldest first, ids as they were", async (t) => {
  const { db, schema } = await schemaAt(t, 30); // the last step with a points_awards row per award (migrations/031)
  const [system, trigger, version, boost, oldId, eventId, later, latest] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await db.query(
    `INSERT INTO points_awards (id, tenant_id, user_id, system_id, trigger_id, event_id, awarded, total, at, local_date)
     VALUES ($2, $1, 'u1', $3, $4, NULL, 5, 5, '2026-03-01T10:00:00Z', '2026-03-01')`,
    [DEFAULT_TENANT_ID, oldId, system, trigger],
  );
  await migrate(db, schema, 32); // the last step with an award[] in the event's row (migrations/033)
  const insertEvent = (id: string, day: number, awards: string) => db.query(
    `INSERT INTO events (id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at, ver, awards)
     VALUES ($2, $1, 'u1', $3, 1, 1, $4, $5, $6, $7)`,
    [DEFAULT_TENANT_ID, id, randomUUID(), `2026-03-0${day}`, `2026-03-0${day}T10:00:00Z`, `177244560000000000${day}`, awards],
  );
  // Two awards of one system, the second with a trigger version and boosted by two boosts.
  await insertEvent(eventId, 2, `{"(${system},${trigger},,0,3,8,)","(${system},${trigger},${version},1,4,12,\\"${boost},${oldId}\\")"}`);
  await migrate(db, schema, 33); // the last step with a bigint[] in the event's row (migrations/034)
  const [{ kinds }] = (await db.query('SELECT count(*)::int AS kinds FROM award_kinds')).rows;
  t.equal(kinds, 2, 'one kind per distinct system, trigger, version and boosts');
  const [k] = (await db.query('SELECT id FROM award_kinds WHERE trigger_version IS NULL')).rows;
  await insertEvent(later, 3, `{${k.id},0,7,19}`);
  await migrate(db, schema);
  await insertEvent(latest, 4, `${k.id} 0 2 21`);
  const awards = await recentAwards(db, DEFAULT_TENANT_ID, 'u1', system, 10);
  t.same(awards.map((a) => [a.id, a.awarded, a.total, a.boosts]), [
    [awardId(latest, trigger, 0), 2, 21, []],
    [awardId(later, trigger, 0), 7, 19, []],
    [awardId(eventId, trigger, 1), 4, 12, [boost, oldId]],
    [awardId(eventId, trigger, 0), 3, 8, []],
    [oldId, 5, 5, []],
  ], 'newest first; the old row keeps its stored id; boosts as they were');
  const { rows } = await db.query('SELECT trigger_version FROM awards WHERE event_id = $1 ORDER BY place', [eventId]);
  t.same(rows.map((r) => r.trigger_version), [null, version], "each award's trigger version");
});
