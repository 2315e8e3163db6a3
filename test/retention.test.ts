import t from 'tap';
import { DateTime } from 'luxon';
import { startServer, TestServer } from './helpers/harness';
import { historyField } from '../src/domain/user-hash';
import { conform, trophySchema, trophySpecAvailable, trophyWebhookSchema } from './helpers/trophy-schema';

/** Set the server clock to a local wall time in a zone. */
const at = (s: TestServer, local: string, zone = 'UTC') => s.clock.set(DateTime.fromISO(local, { zone }).toMillis());
const iso = (local: string, zone: string) => DateTime.fromISO(local, { zone }).toUTC().toISO({ suppressMilliseconds: true })!.replace('Z', '.000Z');

const EMAIL_TYPES = ['emails.achievement_due', 'emails.recap_due', 'emails.reactivation_due', 'emails.streak_reminder_due'];

/**
 * A server with metric `m`, a daily streak on it, the given retention
 * settings and an endpoint for the email-due events. Users without a zone are
 * in UTC here unless the settings say otherwise (the times below are UTC's).
 */
async function setup(t: { teardown(fn: () => unknown): void }, retention: Record<string, unknown>, streak = true) {
  const s = await startServer(t);
  const m = await s.metrics(['m']);
  if (streak) {
    const r = await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.m!.id, threshold: 1 }] } });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  }
  const r = await s.call('PUT', '/admin/v1/retention', { body: { defaultTimeZone: 'UTC', ...retention } });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  // Nothing listens there: deliveries stay in the outbox, which is what these tests read.
  const w = await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: EMAIL_TYPES }] });
  if (w.status !== 201) throw new Error(JSON.stringify(w.body));
  return { s, m };
}

async function ev(s: TestServer, user: string, tz?: string, value = 1) {
  const r = await s.event('m', { user: { id: user, ...(tz ? { tz } : {}) }, value });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return r.body;
}

/** Flush, run the scheduler once, and read the email-due deliveries queued so far (oldest first). */
async function queued(s: TestServer, type?: string): Promise<{ type: string; body: any }[]> {
  await s.drain();
  await s.app.scheduler.runOnce();
  await s.drain();
  const { rows } = await s.app.ctx.db.query<{ type: string; payload: string }>(
    `SELECT type, payload FROM webhook_deliveries WHERE type LIKE 'emails.%' ORDER BY created, payload`,
  );
  const out = rows.filter((r) => !type || r.type === type).map((r) => ({ type: r.type, body: JSON.parse(r.payload) }));
  if (trophySpecAvailable) {
    for (const d of out) {
      const problems = conform(d.body, trophyWebhookSchema(d.type));
      if (problems.length) throw new Error(`${d.type} does not conform to Trophy's schema: ${problems.join('; ')}`);
    }
  }
  return out;
}

t.test('preferences: tenant defaults, a user\'s own channels, opting out, and errors', async (t) => {
  const { s } = await setup(t, { notificationDefaults: { recap: ['email', 'push'] } }, false);
  await ev(s, 'u1');
  const all = { achievement_completed: ['email'], recap: ['email', 'push'], reactivation: ['email'], streak_reminder: ['email'] };
  t.same((await s.call('GET', '/v1/users/u1/preferences')).body, { notifications: all });
  const p = await s.call('PATCH', '/v1/users/u1/preferences', { body: { notifications: { recap: [], streak_reminder: ['push', 'email'] } } });
  t.equal(p.status, 200);
  t.same(p.body, { notifications: { ...all, recap: [], streak_reminder: ['push', 'email'] } });
  t.same((await s.call('GET', '/v1/users/u1/preferences')).body, p.body, 'kept');
  if (trophySpecAvailable) t.same(conform(p.body, trophySchema('UserPreferencesResponse')), [], "Trophy's UserPreferencesResponse");
  const bad = await s.call('PATCH', '/v1/users/u1/preferences', { body: { notifications: { recap: ['sms'] } } });
  t.equal(bad.status, 422);
  t.match(bad.body.error, /recap/);
  t.equal((await s.call('GET', '/v1/users/nobody/preferences')).status, 404);
  t.equal((await s.call('PATCH', '/v1/users/nobody/preferences', { body: { notifications: {} } })).status, 404);
  const streak = await s.call('PATCH', '/v1/users/u1/preferences', { body: { streak: { evaluationMode: 'OR' } } });
  t.equal(streak.status, 403, 'streak preferences need streak customization');
  t.same((await s.call('GET', '/v1/users/u1/preferences')).body, p.body, 'a refused update changed nothing');
  t.equal((await s.call('GET', '/admin/v1/retention')).body.notificationDefaults.recap.length, 2);
});

t.test('control group: assigned once when first seen, kept when the ratio changes, and sent nothing', async (t) => {
  const { s } = await setup(t, { controlRatio: 0.5, achievementEmails: { enabled: true }, reactivationEmails: { enabled: true, days: [1] } }, false);
  const first = new Map<string, boolean>();
  for (let i = 0; i < 40; i++) first.set(`u${i}`, (await ev(s, `u${i}`)) && (await s.call('GET', `/v1/users/u${i}`)).body.control);
  const inControl = [...first.values()].filter(Boolean).length;
  t.ok(inControl > 5 && inControl < 35, `about half in control (${inControl} of 40)`);
  await s.call('PUT', '/admin/v1/retention', { body: { defaultTimeZone: 'UTC', controlRatio: 0, achievementEmails: { enabled: true }, reactivationEmails: { enabled: true, days: [1] } } });
  for (const [id, control] of first) t.equal((await s.call('GET', `/v1/users/${id}`)).body.control, control, `${id} keeps its group`);
  t.equal((await s.call('GET', '/v1/users/new')).status, 404);
  await ev(s, 'new');
  t.equal((await s.call('GET', '/v1/users/new')).body.control, false, 'ratio 0: nobody new in control');
  // Two days later every user is due a reactivation message: only those outside the control group get one.
  at(s, '2026-03-12T00:00');
  const sent = new Set((await queued(s, 'emails.reactivation_due')).map((d) => d.body.user.id));
  for (const [id, control] of first) t.equal(sent.has(id), !control, `${id}: ${control ? 'control, nothing' : 'reactivation due'}`);
});

t.test('streak reminder: once, four hours before the local day ends, and not after the user acts', async (t) => {
  const zone = 'America/New_York';
  const { s } = await setup(t, { streakReminderEmails: { enabled: true } });
  at(s, '2026-03-10T09:00', zone);
  await ev(s, 'lazy', zone);
  await ev(s, 'keen', zone);
  await ev(s, 'optout', zone);
  await s.call('PATCH', '/v1/users/optout/preferences', { body: { notifications: { streak_reminder: [] } } });
  at(s, '2026-03-11T12:00', zone);
  await ev(s, 'keen', zone); // extends today's streak: nothing to remind
  at(s, '2026-03-11T19:59', zone);
  t.same(await queued(s), [], 'not before 8 PM');
  at(s, '2026-03-11T20:00', zone);
  const due = await queued(s);
  t.same(due.map((d) => d.body.user.id), ['lazy']);
  t.match(due[0]!.body, { type: 'emails.streak_reminder_due', timestamp: iso('2026-03-11T20:00', zone), streak: { length: 1, periodStart: '2026-03-11', expires: '2026-03-11' } });
  at(s, '2026-03-11T23:30', zone);
  t.equal((await queued(s)).length, 1, 'once per period');
  // The next day nobody acted: lazy's streak is gone (no reminder); keen is reminded at 8 PM.
  at(s, '2026-03-12T20:30', zone);
  t.same((await queued(s)).map((d) => [d.body.user.id, d.body.timestamp]), [['lazy', iso('2026-03-11T20:00', zone)], ['keen', iso('2026-03-12T20:00', zone)]]);
  // Acting before the reminder time in a period means no reminder in it.
  at(s, '2026-03-13T10:00', zone);
  await ev(s, 'keen', zone);
  at(s, '2026-03-13T21:00', zone);
  t.equal((await queued(s)).length, 2, 'keen acted today: nothing new');
});

t.test('daily recaps in three zones around a daylight-saving change', async (t) => {
  const { s } = await setup(t, { recapEmails: { enabled: true, frequency: 'daily' } }, false);
  // Europe/London moves to BST on 2026-03-29: that day is 23 hours long.
  // In the order their days end.
  const zones = { sydney: 'Australia/Sydney', london: 'Europe/London', york: 'America/New_York' } as const;
  for (const [id, zone] of Object.entries(zones)) {
    at(s, '2026-03-29T10:00', zone);
    await ev(s, id, zone);
  }
  for (const [id, zone] of Object.entries(zones)) {
    s.clock.set(DateTime.fromISO('2026-03-30T00:00', { zone }).toMillis() - 60_000);
    t.notOk((await queued(s)).some((d) => d.body.user.id === id), `${id}: not before local midnight`);
    at(s, '2026-03-30T00:00', zone);
    const mine = (await queued(s)).filter((d) => d.body.user.id === id);
    t.same(mine.map((d) => [d.body.recap, d.body.timestamp]), [[{ periodStart: '2026-03-29', periodEnd: '2026-03-29' }, iso('2026-03-30T00:00', zone)]], `${id}: at local midnight`);
  }
  t.equal(DateTime.fromISO('2026-03-30T00:00', { zone: 'Europe/London' }).toUTC().hour, 23, 'London\'s day ended at 23:00 UTC');
  // Nobody was active on the 30th: no recap for it.
  at(s, '2026-04-02T00:00');
  t.equal((await queued(s, 'emails.recap_due')).length, 3);
});

t.test('reactivation: on the timeline, stopping when the user comes back; an opted-out type never fires', async (t) => {
  const { s } = await setup(t, { reactivationEmails: { enabled: true, days: [3, 5] } }, false);
  at(s, '2026-03-10T12:00');
  await ev(s, 'gone');
  await ev(s, 'back');
  await ev(s, 'quiet');
  await s.call('PATCH', '/v1/users/quiet/preferences', { body: { notifications: { reactivation: [] } } });
  at(s, '2026-03-13T23:59');
  t.same(await queued(s), [], 'three whole days have not passed yet');
  at(s, '2026-03-14T00:00');
  t.same((await queued(s)).map((d) => [d.body.user.id, d.body.reactivation]), [
    ['back', { messageNumber: 1, daysSinceLastActive: 3 }],
    ['gone', { messageNumber: 1, daysSinceLastActive: 3 }],
  ].sort());
  at(s, '2026-03-15T09:00');
  await ev(s, 'back');
  at(s, '2026-03-16T00:00');
  t.same((await queued(s)).slice(2).map((d) => [d.body.user.id, d.body.reactivation]), [['gone', { messageNumber: 2, daysSinceLastActive: 5 }]], 'back came back: only gone gets the second');
  at(s, '2026-03-19T00:00');
  at(s, '2026-03-19T00:00');
  t.same((await queued(s)).slice(3).map((d) => [d.body.user.id, d.body.reactivation.messageNumber]), [['back', 1]], 'back: the timeline restarts from the 15th');
  at(s, '2026-03-21T00:00');
  t.same((await queued(s)).slice(4).map((d) => [d.body.user.id, d.body.reactivation.messageNumber]), [['back', 2]]);
  at(s, '2026-04-30T00:00');
  const all = (await queued(s)).map((d) => [d.body.user.id, d.body.reactivation.messageNumber]);
  t.equal(all.length, 5, 'the timeline ends after its last message');
  t.notOk(all.some(([u]) => u === 'quiet'), 'opted out: never');
});

t.test('achievement emails: due between 5 and 9 PM on the day, else 5 PM the next day', async (t) => {
  const zone = 'Asia/Tokyo';
  const { s, m } = await setup(t, { achievementEmails: { enabled: true } }, false);
  await s.call('POST', '/admin/v1/achievements', {
    body: [1, 2, 3].map((n) => ({ key: `a${n}`, name: `A${n}`, trigger: 'metric', metricId: m.m!.id, metricValue: n, status: 'active' })),
  });
  at(s, '2026-03-10T10:00', zone);
  await ev(s, 'u', zone);
  at(s, '2026-03-10T18:30', zone);
  await ev(s, 'u', zone);
  at(s, '2026-03-10T22:00', zone);
  await ev(s, 'u', zone);
  await ev(s, 'u', zone); // completes nothing new
  const due = await queued(s);
  t.same(due.map((d) => [d.body.achievement.key, d.body.timestamp]).sort(), [
    ['a1', iso('2026-03-10T17:00', zone)],
    ['a2', iso('2026-03-10T18:30', zone)],
    ['a3', iso('2026-03-11T17:00', zone)],
  ]);
  t.equal(due[0]!.body.user.id, 'u');
});

t.test("streak preferences: a user's own metrics, thresholds and mode replace the tenant's", async (t) => {
  const s = await startServer(t);
  const m = await s.metrics(['m', 'n']);
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.m!.id, threshold: 1 }] } });
  const patch = (user: string, streak: unknown) => s.call('PATCH', `/v1/users/${user}/preferences`, { body: { streak } });
  const send = async (user: string, metric: string, value: number) => (await s.event(metric, { user: { id: user }, value })).body.currentStreak;
  for (const u of ['own', 'plain', 'off']) await send(u, 'n', 1);
  t.equal((await patch('own', { evaluationMode: 'OR', metrics: [{ key: 'n', threshold: 5 }] })).status, 403, 'not until the tenant enables customization');
  await s.call('PUT', '/admin/v1/retention', { body: { streakCustomization: true } });
  t.equal((await patch('own', { metrics: [{ key: 'nope', threshold: 5 }] })).status, 422, 'unknown metric');
  const p = await patch('own', { evaluationMode: 'OR', metrics: [{ key: 'n', threshold: 5 }] });
  t.equal(p.status, 200);
  t.same(p.body.streak, { enabled: true, evaluationMode: 'OR', metrics: [{ key: 'n', threshold: 5 }] });
  if (trophySpecAvailable) t.same(conform(p.body, trophySchema('UserPreferencesResponse')), []);
  t.same((await s.call('GET', '/v1/users/own/preferences')).body.streak, p.body.streak, 'read back');
  t.equal((await patch('off', { enabled: false })).status, 200);

  t.equal((await send('plain', 'm', 1)).length, 1, "the tenant's rule: m ≥ 1");
  t.equal((await send('own', 'm', 1)).length, 0, 'own rule: m does not count');
  t.equal((await send('own', 'n', 3)).length, 0, 'n: 3 of 5 today');
  t.match(await send('own', 'n', 2), { length: 1, extended: true }, 'n reached 5 within the day');
  t.equal((await send('off', 'm', 10)).length, 0, 'streaks off for this user');
  // The next day the own rule still holds, and its streak is read with it (settled by the same rule).
  s.clock.set(s.clock.now() + 86_400_000);
  t.match(await send('own', 'n', 5), { length: 2 });
  t.equal((await s.call('GET', '/v1/users/own/streak')).body.length, 2);
  t.equal((await s.call('GET', '/v1/users/plain/streak')).body.length, 1, 'plain has not acted today yet');
});

t.test('once per user and period across schedulers, crashes and outages', async (t) => {
  const { s } = await setup(t, { recapEmails: { enabled: true, frequency: 'weekly' }, reactivationEmails: { enabled: true, days: [3] } }, false);
  const b = await startServer(t, { DATABASE_SCHEMA: s.schema, REDIS_KEY_PREFIX: s.prefix, ADMIN_API_KEY: s.adminKey });
  b.clock.set(s.clock.now());
  for (let i = 0; i < 20; i++) await ev(s, `u${i}`);
  await s.drain();
  const tk = s.app.ctx.keys.tenant((await s.app.ctx.tenants.all())[0]!.slot);
  // Monday 2026-03-16: the week of the 9th is over, and three days have passed without activity.
  for (const c of [s.clock, b.clock]) c.set(Date.parse('2026-03-16T00:00:00Z'));
  // Two schedulers at once (as with a lapsed lease).
  await Promise.all([s.app.scheduler.runOnce(), b.app.scheduler.runOnce()]);
  const first = await queued(s);
  t.equal(first.filter((d) => d.type === 'emails.recap_due').length, 20);
  t.equal(first.filter((d) => d.type === 'emails.reactivation_due').length, 20);
  t.same(first.find((d) => d.type === 'emails.recap_due')!.body.recap, { periodStart: '2026-03-09', periodEnd: '2026-03-15' });
  // A scheduler that crashed after queuing, before moving the users on: they are looked at again.
  await s.app.ctx.redis.zadd(tk.retentionDue, ...Array.from({ length: 20 }, (_, i) => [0, `u${i}`]).flat());
  t.equal((await queued(s)).length, 40, 'nothing twice');
  // An outage of a week: the next look sends nothing for the old periods again, and nothing new is due (nobody was active).
  for (const c of [s.clock, b.clock]) c.set(Date.parse('2026-03-23T06:00:00Z'));
  t.equal((await queued(s)).length, 40);
  t.equal(await s.app.ctx.redis.zcard(tk.retentionDue), 0, 'nothing left to look at until the users come back');
});

// A hash from before Laurel kept a streak's recent history there: the
// reminder reads it from Postgres, after writing the user's records it lacks.
t.test('streak reminder of a user whose hash has no kept history: the unflushed days count', async (t) => {
  const { s } = await setup(t, { streakReminderEmails: { enabled: true } });
  await s.app.flusher.stop();
  at(s, '2026-03-09T09:00');
  await ev(s, 'old');
  at(s, '2026-03-10T09:00');
  await ev(s, 'old');
  const [tenant] = await s.app.ctx.tenants.all();
  await s.app.ctx.redis.hdel(s.app.ctx.keys.tenant(tenant!.slot).user('old'), historyField('d'));
  at(s, '2026-03-11T20:00');
  await s.app.scheduler.runOnce(); // before any flush
  const { rows } = await s.app.ctx.db.query<{ payload: string }>(`SELECT payload FROM webhook_deliveries WHERE type = 'emails.streak_reminder_due'`);
  t.equal(rows.length, 1);
  const history = JSON.parse(rows[0]!.payload).streak.streakHistory.map((p: { periodStart: string; length: number }) => [p.periodStart, p.length]);
  t.same(history.slice(-3, -1), [['2026-03-09', 1], ['2026-03-10', 2]]);
});

t.test('weekly and monthly streak reminders: Friday morning, and the 25th', async (t) => {
  for (const [frequency, acted, before, due] of [
    ['weekly', '2026-03-16T10:00', '2026-03-20T08:59', '2026-03-20T09:00'], // a Monday; that week's Friday
    ['monthly', '2026-03-02T10:00', '2026-03-25T08:59', '2026-03-25T09:00'],
  ] as const) {
    t.test(frequency, async (t) => {
      const zone = 'Europe/Berlin';
      const s = await startServer(t);
      const m = await s.metrics(['m']);
      await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency, metrics: [{ metricId: m.m!.id, threshold: 1 }] } });
      await s.call('PUT', '/admin/v1/retention', { body: { streakReminderEmails: { enabled: true } } });
      await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: EMAIL_TYPES }] });
      // Extended in the previous period, so the current one is at risk.
      const previous = DateTime.fromISO(acted, { zone }).minus(frequency === 'weekly' ? { weeks: 1 } : { months: 1 });
      s.clock.set(previous.toMillis());
      await ev(s, 'u', zone);
      at(s, before, zone);
      t.same(await queued(s), []);
      at(s, due, zone);
      t.same((await queued(s)).map((d) => d.body.timestamp), [iso(due, zone)]);
    });
  }
});

t.test("a user's own streak rule also moves streak boards and streak webhooks", async (t) => {
  const s = await startServer(t);
  const m = await s.metrics(['m', 'n']);
  await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.m!.id, threshold: 1 }] } });
  await s.call('PUT', '/admin/v1/retention', { body: { streakCustomization: true } });
  await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'streaks', name: 'Streaks', rankBy: 'streak', start: '2026-01-01', status: 'active' }] });
  await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: ['streak.started'] }] });
  await s.event('n', { user: { id: 'own' }, value: 1 });
  await s.call('PATCH', '/v1/users/own/preferences', { body: { streak: { metrics: [{ key: 'n', threshold: 2 }] } } });
  const r = await s.event('n', { user: { id: 'own' }, value: 2 });
  t.match(r.body.leaderboards.streaks, { rank: 1, previousRank: null }, 'the streak the own rule extended joins the board');
  await s.drain();
  t.match((await s.call('GET', '/v1/leaderboards/streaks')).body.rankings, [{ userId: 'own', value: 1 }]);
  await s.drain();
  const { rows } = await s.app.ctx.db.query<{ payload: string }>(`SELECT payload FROM webhook_deliveries WHERE type = 'streak.started'`);
  t.equal(rows.length, 1);
  t.equal(JSON.parse(rows[0]!.payload).user.id, 'own');
});
