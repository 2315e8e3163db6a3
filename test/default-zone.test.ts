import t from 'tap';
import { DateTime } from 'luxon';
import { loadMigrations, migrate } from '../src/store/migrations';
import { schemaPool, startServer, TestServer } from './helpers/harness';

// Users who never sent a `tz` are in their tenant's default zone
// (retention settings' defaultTimeZone): America/New_York for a new tenant,
// as in Trophy. The clock starts at 2026-03-10 12:00 UTC (08:00 in New York).
const NY = 'America/New_York';
const at = (s: TestServer, local: string, zone: string) => s.clock.set(DateTime.fromISO(local, { zone }).toMillis());
const iso = (local: string, zone: string) => DateTime.fromISO(local, { zone }).toUTC().toISO({ suppressMilliseconds: true })!.replace('Z', '.000Z');

async function put(s: TestServer, body: Record<string, unknown>) {
  const r = await s.call('PUT', '/admin/v1/retention', { body });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body;
}

t.test('the setting: New York for new tenants, any IANA zone, refused otherwise', async (t) => {
  const s = await startServer(t);
  t.equal((await s.call('GET', '/admin/v1/retention')).body.defaultTimeZone, NY, 'a new deployment');
  t.equal((await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] })).status, 201);
  t.equal((await s.call('GET', '/admin/v1/retention', { tenant: 'other' })).body.defaultTimeZone, NY, 'a new tenant');
  t.equal((await put(s, { defaultTimeZone: 'asia/tokyo' })).defaultTimeZone, 'Asia/Tokyo', 'stored in its canonical spelling');
  t.equal((await s.call('GET', '/admin/v1/retention')).body.defaultTimeZone, 'Asia/Tokyo');
  t.equal((await put(s, { controlRatio: 0 })).defaultTimeZone, NY, 'omitted: the default again, as every omitted field');
  const bad = await s.call('PUT', '/admin/v1/retention', { body: { defaultTimeZone: 'Mars/Olympus' } });
  t.equal(bad.status, 422);
  t.match(bad.body.error, /IANA/);
  t.equal((await s.call('PUT', '/admin/v1/retention', { body: { defaultTimeZone: '' } })).status, 422);
  t.equal((await s.call('GET', '/admin/v1/retention')).body.defaultTimeZone, NY, 'nothing changed by a refusal');
});

t.test('tenants from before the setting keep UTC; a new database starts in New York', async (t) => {
  const { schema, db } = schemaPool(t, 'test_zone');
  // A deployment from before: the migrations before the default zone's, in an earlier run, with a second tenant.
  const steps = loadMigrations();
  const mine = steps.findIndex((m) => m.sql.includes('"defaultTimeZone": "UTC"'));
  t.ok(mine > 0);
  await db.query(`CREATE SCHEMA "${schema}"`);
  await db.query('CREATE TABLE laurel_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const m of steps.slice(0, mine)) {
    await db.query(m.sql);
    await db.query('INSERT INTO laurel_migrations (version) VALUES ($1)', [m.version]);
  }
  await db.query(`INSERT INTO tenants (id, slot, name, created, updated) VALUES ('00000000-0000-0000-0000-0000000000aa', 7, 'Old', now(), now())`);
  await db.query(`INSERT INTO retention_settings (tenant_id, settings, updated) VALUES ('00000000-0000-0000-0000-0000000000aa', '{"controlRatio": 0.25}', now())`);
  t.equal(await migrate(db, schema), steps.length - mine);
  const { rows } = await db.query<{ name: string; settings: Record<string, unknown> }>(
    'SELECT t.name, r.settings FROM tenants t JOIN retention_settings r ON r.tenant_id = t.id ORDER BY t.slot',
  );
  t.same(rows, [
    { name: 'Default', settings: { defaultTimeZone: 'UTC' } },
    { name: 'Old', settings: { controlRatio: 0.25, defaultTimeZone: 'UTC' } },
  ], 'both keep UTC, and the other settings they had');

  const s = await startServer(t, { DATABASE_SCHEMA: schema });
  t.match((await s.call('GET', '/admin/v1/retention')).body, { defaultTimeZone: 'UTC', controlRatio: 0, reactivationEmails: { enabled: false } });
  // The fresh schema of any other test server: no row, so the new default.
  const fresh = await startServer(t);
  t.equal((await fresh.app.ctx.db.query('SELECT 1 FROM retention_settings')).rowCount, 0);
});

t.test('a streak period follows the default zone; a zone sent now or before wins', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } });
  const ev = async (user: Record<string, unknown>) => (await s.event('m', { user, value: 1 })).body.currentStreak;
  at(s, '2026-03-10T22:00', NY); // 02:00 UTC on the 11th
  t.match(await ev({ id: 'plain' }), { length: 1, periodStart: '2026-03-10' }, "New York's date");
  t.match(await ev({ id: 'own', tz: 'UTC' }), { length: 1, periodStart: '2026-03-11' }, 'a zone sent wins');
  t.match(await ev({ id: 'own' }), { periodStart: '2026-03-11' }, 'a zone sent before wins');
  t.match((await s.call('GET', '/v1/users/plain/streak')).body, { length: 1, periodStart: '2026-03-10', expires: '2026-03-11' });

  await put(s, { defaultTimeZone: 'Asia/Tokyo' }); // 11:00 on the 11th there
  t.match(await ev({ id: 'plain' }), { length: 2, periodStart: '2026-03-11' }, 'the tenant moved its default: the next day in Tokyo');
  t.match(await ev({ id: 'own' }), { length: 1, periodStart: '2026-03-11' }, 'unmoved');
  t.match(await ev({ id: 'cleared', tz: 'America/Los_Angeles' }), { periodStart: '2026-03-10' });
  t.equal((await s.call('PATCH', '/v1/users/cleared', { body: { tz: null } })).status, 200);
  t.match(await ev({ id: 'cleared' }), { periodStart: '2026-03-11' }, 'a cleared zone: the default');
});

t.test("a message's due time follows the default zone", async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  await put(s, { achievementEmails: { enabled: true } });
  await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: ['emails.achievement_due'] }] });
  await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'a1', name: 'A1', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
  // 10 AM in New York and 3 PM in UTC: due at 5 PM New York time (9 PM UTC), where UTC's rule would say 5 PM UTC.
  at(s, '2026-03-10T10:00', NY);
  await s.event('m', { user: { id: 'plain' }, value: 1 });
  await s.event('m', { user: { id: 'utc', tz: 'UTC' }, value: 1 });
  await s.drain();
  await s.app.scheduler.runOnce();
  await s.drain();
  const { rows } = await s.app.ctx.db.query<{ payload: string }>(`SELECT payload FROM webhook_deliveries WHERE type = 'emails.achievement_due'`);
  const due = Object.fromEntries(rows.map((r) => JSON.parse(r.payload)).map((p) => [p.user.id, p.timestamp]));
  t.same(due, { plain: iso('2026-03-10T17:00', NY), utc: iso('2026-03-10T17:00', 'UTC') });
});

t.test('a leaderboard window follows the default zone', async (t) => {
  const s = await startServer(t);
  const { m } = await s.metrics(['m']);
  const r = await s.call('POST', '/admin/v1/leaderboards', {
    body: [{ key: 'day', name: 'Daytime', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', startTime: '09:00', endTime: '17:00', status: 'active' }],
  });
  t.equal(r.status, 201);
  const ranked = async (user: Record<string, unknown>) => (await s.event('m', { user, value: 1 })).body.leaderboards.day !== undefined;
  s.clock.set('2026-03-10T20:00:00Z'); // 16:00 in New York
  t.equal(await ranked({ id: 'plain' }), true, 'inside the window in New York');
  t.equal(await ranked({ id: 'utc', tz: 'UTC' }), false, 'after it in UTC');
  s.clock.set('2026-03-10T12:00:00Z'); // 08:00 in New York
  t.equal(await ranked({ id: 'plain' }), false, 'before it in New York');
  t.equal(await ranked({ id: 'utc' }), true, 'inside it in UTC, the zone sent before');
  const rankings = (await s.call('GET', '/v1/leaderboards/day')).body.rankings.map((x: { userId: string; value: number }) => `${x.userId}:${x.value}`);
  t.same(rankings.sort(), ['plain:1', 'utc:2'], 'each at its total when an event inside the window last moved it');
});
