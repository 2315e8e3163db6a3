import t, { Test } from 'tap';
import path from 'node:path';
import { execFile } from 'node:child_process';
import typia, { IValidation } from 'typia';
import { startServer } from './helpers/harness';
import type * as W from '../src/client';

// Loaded by the package's own name, as users import it: this resolves through
// package.json `exports` to the compiled client.
const { Laurel, LaurelError } = require('laurel/client') as typeof W;

const ROOT = path.resolve(__dirname, '../..');

/** A response is exactly what its type (and so /openapi.json) says: no missing, mistyped or undescribed field. */
function described(t: Test, what: string, r: IValidation<unknown>): void {
  t.ok(r.success, `${what} matches its description`, r.success ? {} : { errors: r.errors.slice(0, 5) });
}

t.test('a scenario through the typed client', async (t) => {
  const s = await startServer(t);
  const laurel = new Laurel({ apiKey: s.adminKey, baseUrl: `${s.url}/` });
  const admin = laurel.admin;

  // ---- configuration through the Admin API ----
  t.same(await laurel.health(), { status: 'ok' });
  const metrics = await admin.metrics.create([{ key: 'lessons', name: 'Lessons' }, { key: 'bad key', name: 'Bad' }]);
  described(t, 'created metrics', typia.validateEquals<W.Created<W.AdminMetric>>(metrics));
  t.equal(metrics.created.length, 1);
  t.match(metrics.issues, [{ index: 1, severity: 'error' }], 'a bad item is an issue, the rest is applied');
  const lessons = metrics.created[0]!;
  described(t, 'metric list', typia.validateEquals<W.AdminMetric[]>(await admin.metrics.list({ limit: 5 })));
  const renamed = await admin.metrics.update([{ id: lessons.id, name: 'Lessons done' }]);
  t.equal(renamed.updated[0]!.name, 'Lessons done');
  t.equal((await admin.metrics.get(lessons.id)).name, 'Lessons done');

  const attrs = await admin.attributes.create([{ key: 'plan', name: 'Plan', type: 'user' }]);
  described(t, 'attributes', typia.validateEquals<W.Created<W.AdminAttribute>>(attrs));

  const systems = await admin.points.create([{
    key: 'xp', name: 'XP',
    levels: [{ key: 'rookie', name: 'Rookie', points: 10 }],
    triggers: [{ type: 'metric', metricId: lessons.id, metricThreshold: 1, points: 10, status: 'active' }],
  }]);
  described(t, 'created points system', typia.validateEquals<W.Created<W.AdminPointsSystemWithItems>>(systems));
  const xp = systems.created[0]!;
  const boosts = await admin.points.boosts(xp.id).create([{ name: 'Launch week', start: '2026-03-01', end: '2026-03-31', multiplier: 2 }]);
  described(t, 'boosts', typia.validateEquals<W.Created<W.AdminPointsBoost>>(boosts));
  described(t, 'triggers', typia.validateEquals<W.AdminPointsTrigger[]>(await admin.points.triggers(xp.id).list()));
  described(t, 'levels', typia.validateEquals<W.AdminPointsLevel[]>(await admin.points.levels(xp.id).list()));

  const achievements = await admin.achievements.create([
    { key: 'first', name: 'First lesson', trigger: 'metric', metricId: lessons.id, metricValue: 1, status: 'active' },
    { key: 'profile', name: 'Profile complete', trigger: 'api', status: 'active' },
  ]);
  described(t, 'achievements', typia.validateEquals<W.Created<W.AdminAchievement>>(achievements));
  const boards = await admin.leaderboards.create([
    { key: 'weekly', name: 'Weekly', rankBy: 'points', pointsSystemId: xp.id, start: '2026-03-09', runUnit: 'day', runInterval: 7, status: 'active' },
  ]);
  described(t, 'leaderboards', typia.validateEquals<W.Created<W.AdminLeaderboard>>(boards));
  const streak = await admin.streak.set({ enabled: true, frequency: 'daily', metrics: [{ metricId: lessons.id, threshold: 1 }], maxFreezes: 2 });
  described(t, 'streak settings', typia.validateEquals<W.StreakSettingsResponse>(streak));
  t.same(await admin.streak.get(), streak);

  // ---- the Application API ----
  const user = await laurel.users.identify('ada', { name: 'Ada', tz: 'Europe/London', attributes: { plan: 'pro' } });
  described(t, 'user', typia.validateEquals<W.User>(user));
  const ev = await laurel.events.send('lessons', { user: { id: 'ada' }, value: 1 }, { idempotencyKey: 'lesson-1' });
  described(t, 'event response', typia.validateEquals<W.EventResponse>(ev));
  t.equal(ev.total, 1);
  t.equal(ev.points.xp!.added, 20, 'doubled by the boost');
  t.equal(ev.points.xp!.level?.key, 'rookie');
  t.same(ev.achievements.map((a) => a.key), ['first']);
  t.equal(ev.currentStreak.length, 1);
  t.equal(ev.leaderboards.weekly!.rank, 1);
  const again = await laurel.events.send('lessons', { user: { id: 'ada' }, value: 1 }, { idempotencyKey: 'lesson-1' });
  described(t, 'replayed event', typia.validateEquals<W.EventResponse>(again));
  t.equal(again.idempotentReplayed, true);
  t.equal(again.total, 1, 'a retry with the same key counts once');

  await laurel.events.send('lessons', { user: { id: 'bob', name: 'Bob' }, value: 2 });
  described(t, 'updated user', typia.validateEquals<W.User>(await laurel.users.update('bob', { email: 'bob@example.com' })));
  described(t, 'created user', typia.validateEquals<W.User>(await laurel.users.create({ id: 'cy' })));
  t.equal((await laurel.users.get('bob')).email, 'bob@example.com');

  const done = await laurel.achievements.complete('profile', { user: { id: 'ada' } });
  described(t, 'completion', typia.validateEquals<W.AchievementCompletion>(done));
  described(t, 'achievements', typia.validateEquals<W.AchievementWithStats[]>(await laurel.achievements.all()));
  const mine = await laurel.users.achievements('ada', { includeIncomplete: true });
  described(t, "a user's achievements", typia.validateEquals<W.UserAchievement[]>(mine));
  t.same(mine.map((a) => a.key), ['first', 'profile']);

  described(t, 'metrics', typia.validateEquals<W.MetricProgress[]>(await laurel.users.metrics('ada')));
  described(t, 'metric', typia.validateEquals<W.MetricProgress>(await laurel.users.metric('ada', 'lessons')));
  await admin.streaks.freezes({ freezes: [{ userId: 'ada' }] });
  const st = await laurel.users.streak('ada', { historyPeriods: 3 });
  described(t, 'streak', typia.validateEquals<W.UserStreak>(st));
  t.equal(st.freezes, 1);
  described(t, 'streak list', typia.validateEquals<W.StreakSummary[]>(await laurel.streaks.list(['ada', 'bob'])));
  described(t, 'streak rankings', typia.validateEquals<W.StreakRanking[]>(await laurel.streaks.rankings({ limit: 5, type: 'longest' })));
  described(t, 'batch accepted', typia.validateEquals<W.BatchEventsResponse>(await admin.metrics.batchEvents([{ key: 'lessons', user: { id: 'cy' }, value: 1 }])));
  described(t, 'rejected batch items', typia.validateEquals<W.BatchRejection[]>(await admin.metrics.rejected.list()));

  await s.app.flusher.drain();
  const pts = await laurel.users.points('ada', 'xp', { awards: 5 });
  described(t, 'user points', typia.validateEquals<W.UserPoints>(pts));
  t.equal(pts.total, 20);
  described(t, 'user boosts', typia.validateEquals<W.PointsBoost[]>(await laurel.users.pointsBoosts('ada', 'xp')));
  const range = { aggregation: 'daily', startDate: '2026-03-10', endDate: '2026-03-10' } as const;
  t.same(await laurel.users.metricEventSummary('ada', 'lessons', range), [{ date: '2026-03-10', total: 1, change: 1 }]);
  t.same(await laurel.users.pointsEventSummary('ada', 'xp', range), [{ date: '2026-03-10', total: 20, change: 20 }]);
  described(t, 'points system', typia.validateEquals<W.PointsSystem>(await laurel.points.system('xp')));
  described(t, 'levels', typia.validateEquals<W.PointsLevel[]>(await laurel.points.levels('xp')));
  described(t, 'boosts', typia.validateEquals<W.PointsBoost[]>(await laurel.points.boosts('xp', { includeFinished: true })));
  described(t, 'points summary', typia.validateEquals<W.PointsRange[]>(await laurel.points.summary('xp', { userAttributes: 'plan:pro' })));
  described(t, 'level summary', typia.validateEquals<W.LevelSummary[]>(await laurel.points.levelSummary('xp')));

  described(t, 'leaderboards', typia.validateEquals<W.LeaderboardSummary[]>(await laurel.leaderboards.all()));
  const board = await laurel.leaderboards.get('weekly', { limit: 2 });
  described(t, 'rankings', typia.validateEquals<W.LeaderboardRankings>(board));
  t.same(board.rankings.map((r) => [r.userId, r.value]), [['bob', 40], ['ada', 20]]);
  const standing = await laurel.users.leaderboard('ada', 'weekly', { numEvents: 3 });
  described(t, "a user's standing", typia.validateEquals<W.UserLeaderboard>(standing));
  t.equal(standing.rank, 2);

  // ---- errors, keys and tenants ----
  const missing = await laurel.users.get('nobody').catch((e: unknown) => e);
  t.ok(missing instanceof LaurelError);
  t.match(missing, { status: 404, message: 'User "nobody" not found' });

  const keys = await admin.apiKeys.create([{ userId: 'ada' }]);
  described(t, 'application keys', typia.validateEquals<W.Created<W.ApplicationKey>>(keys));
  const own = new Laurel({ apiKey: keys.created[0]!.key, baseUrl: s.url });
  t.equal((await own.users.get('ada')).id, 'ada', 'an application key reads its own user');
  t.match(await own.users.get('bob').catch((e: unknown) => e), { status: 403 }, 'and no other');
  const limited = await admin.apiKeys.update([{ id: keys.created[0]!.id, rateLimit: { perSecond: 50 } }]);
  described(t, 'rate-limited keys', typia.validateEquals<W.Updated<W.UpdatedKey>>(limited));
  t.equal(limited.updated[0]!.rateLimit?.perSecond, 50);
  described(t, 'revoked keys', typia.validateEquals<W.Deleted>(await admin.apiKeys.delete([keys.created[0]!.id])));

  const tenants = await admin.tenants.create([{ customerId: 'acme', name: 'Acme' }]);
  described(t, 'tenants', typia.validateEquals<W.Created<W.AdminTenant>>(tenants));
  const acme = laurel.forTenant('acme');
  t.same(await acme.admin.metrics.list(), [], 'Tenant-ID is sent on every call: acme has no metrics');
  await acme.admin.metrics.create([{ key: 'lessons', name: 'Lessons' }]);
  t.equal((await acme.events.send('lessons', { user: { id: 'ada' }, value: 5 })).total, 5, "acme's ada is not the default tenant's");
  const unknown = new Laurel({ apiKey: s.adminKey, baseUrl: s.url, tenantId: 'nobody' });
  t.match(await unknown.leaderboards.all().catch((e: unknown) => e), { status: 404 }, 'an unknown Tenant-ID is refused');

  described(t, 'deleted metrics', typia.validateEquals<W.Deleted>(await acme.admin.metrics.delete([lessons.id])));
});

t.test('webhook endpoints through the typed client', async (t) => {
  const s = await startServer(t);
  const hooks = new Laurel({ apiKey: s.adminKey, baseUrl: s.url }).admin.webhooks;

  const made = await hooks.create([
    { url: 'https://hooks.example.com/laurel', eventTypes: ['points.changed', 'achievement.completed'], description: 'CRM' },
    { url: 'ftp://hooks.example.com/laurel', eventTypes: ['points.changed'] },
  ]);
  described(t, 'created webhooks', typia.validateEquals<W.Created<W.WebhookWithSecret>>(made));
  t.match(made.issues, [{ index: 1, severity: 'error', message: /http or https/ }], 'a non-http URL is an issue');
  const hook = made.created[0]!;
  t.match(hook.secret, /^whsec_./, 'the signing secret comes back on creation');

  // validateEquals refuses undescribed fields: a `secret` here would fail it.
  const listed = await hooks.list();
  described(t, 'webhook list', typia.validateEquals<W.AdminWebhook[]>(listed));
  t.same(listed.map((h) => h.id), [hook.id]);
  t.notOk(JSON.stringify(listed).includes(hook.secret), 'the list never shows the secret');
  described(t, 'webhook', typia.validateEquals<W.AdminWebhook>(await hooks.get(hook.id)));
  const paused = await hooks.update([{ id: hook.id, status: 'inactive' }]);
  described(t, 'updated webhooks', typia.validateEquals<W.Updated<W.AdminWebhook>>(paused));
  t.equal(paused.updated[0]!.status, 'inactive');

  const rotated = await hooks.rotateSecret(hook.id);
  described(t, 'rotated secret', typia.validateEquals<W.RotatedSecret>(rotated));
  t.not(rotated.secret, hook.secret, 'rotation gives a new secret');

  const deliveries = await hooks.deliveries(hook.id, { status: 'pending', limit: 10 });
  described(t, 'deliveries', typia.validateEquals<W.WebhookDelivery[]>(deliveries));
  t.same(deliveries, [], 'a fresh endpoint has no deliveries');
  t.same(await hooks.redeliverDead(hook.id), { redelivered: 0 });
  const unknown = await hooks.redeliver('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
  t.ok(unknown instanceof LaurelError);
  t.match(unknown, { status: 404, message: 'Webhook delivery not found' });

  // @ts-expect-error `lost` is not a delivery status
  const refused = await hooks.deliveries(hook.id, { status: 'lost' }).catch((e: unknown) => e);
  t.ok(refused instanceof LaurelError, 'a validation error rejects with LaurelError');
  t.match(refused, { status: 422, message: /status/ });

  described(t, 'deleted webhooks', typia.validateEquals<W.Deleted>(await hooks.delete([hook.id])));
  t.same(await hooks.list(), []);
});

t.test('dead letters through the typed client', async (t) => {
  const s = await startServer(t);
  const laurel = new Laurel({ apiKey: s.adminKey, baseUrl: s.url });
  await laurel.admin.metrics.create([{ key: 'm', name: 'M' }]);
  await s.app.ctx.db.query(`ALTER TABLE events ADD CONSTRAINT no_poison CHECK (user_id <> 'poison')`);
  await laurel.events.send('m', { user: { id: 'poison' }, value: 1 });
  await s.drain();

  const dead = laurel.admin.deadLetters;
  const list = await dead.list({ limit: 10 });
  described(t, 'dead letter list', typia.validateEquals<W.DeadLetter[]>(list));
  t.equal(list.length, 1);
  described(t, 'a dead letter', typia.validateEquals<W.DeadLetter>(await dead.get(list[0]!.id)));
  const refused = await dead.replay(list[0]!.id).catch((e: unknown) => e);
  t.ok(refused instanceof LaurelError);
  t.match(refused, { status: 422, message: /no_poison/ });
  await s.app.ctx.db.query('ALTER TABLE events DROP CONSTRAINT no_poison');
  described(t, 'a replay', typia.validateEquals<W.DeadLetterReplayed>(await dead.replay(list[0]!.id)));
  described(t, 'discarded', typia.validateEquals<W.Deleted>(await dead.delete([list[0]!.id])));
  t.same(await dead.list(), []);
});

t.test("privacy requests through the typed client: a user's export and erasure", async (t) => {
  const s = await startServer(t);
  const laurel = new Laurel({ apiKey: s.adminKey, baseUrl: s.url });
  const admin = laurel.admin;
  const { created: [lessons] } = await admin.metrics.create([{ key: 'lessons', name: 'Lessons' }]);
  const { created: [xp] } = await admin.points.create([{
    key: 'xp', name: 'XP', levels: [{ key: 'rookie', name: 'Rookie', points: 10 }],
    triggers: [{ type: 'metric', metricId: lessons!.id, metricThreshold: 1, points: 10, status: 'active' }],
  }]);
  await admin.achievements.create([{ key: 'first', name: 'First lesson', trigger: 'metric', metricId: lessons!.id, metricValue: 1, status: 'active' }]);
  await admin.streak.set({ enabled: true, frequency: 'daily', metrics: [{ metricId: lessons!.id, threshold: 1 }], maxFreezes: 2 });
  await admin.leaderboards.create([{ key: 'weekly', name: 'Weekly', rankBy: 'points', pointsSystemId: xp!.id, start: '2026-03-09', runUnit: 'day', runInterval: 7, status: 'active' }]);
  await admin.webhooks.create([{ url: 'http://127.0.0.1:9/hooks', eventTypes: ['points.changed', 'leaderboard.changed'] }]);
  await admin.apiKeys.create([{ userId: 'ada' }]);
  const ev = await laurel.events.send('lessons', { user: { id: 'ada', name: 'Ada' }, value: 1 }, { idempotencyKey: 'l-1' });
  await s.drain();

  const doc = await admin.users.export('ada');
  described(t, 'user export', typia.validateEquals<W.UserExport>(doc));
  t.same(doc.events.map((e) => e.id), [ev.eventId]);
  t.equal(doc.points[0]!.level?.key, 'rookie');
  t.equal(doc.apiKeys.length, 1);

  const erased = await admin.users.erase('ada');
  described(t, 'erasure', typia.validateEquals<W.ErasedUser>(erased));
  t.same(await admin.users.erase('ada'), erased, 'erasing again answers the same');
  const gone = await admin.users.export('ada').catch((e: unknown) => e);
  t.ok(gone instanceof LaurelError);
  t.match(gone, { status: 404 });
});

t.test('the package export is typed for consumers', async (t) => {
  // A consumer compiled with Node's own module resolution imports `laurel/client` by name;
  // its deliberate misuse must be a type error (or the types are not there).
  const tsc = require.resolve('typescript/bin/tsc');
  const out = await new Promise<{ code: number; text: string }>((resolve) => {
    execFile(process.execPath, [tsc, '-p', 'test/fixtures/client-consumer/tsconfig.json'], { cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, text: stdout + stderr }),
    );
  });
  t.equal(out.code, 0, 'the consumer type-checks', { output: out.text });
});

t.test('retention through the typed client: settings, preferences and Wrapped, exactly as described', async (t) => {
  const s = await startServer(t);
  const laurel = new Laurel({ apiKey: s.adminKey, baseUrl: s.url });
  const { created: [lessons] } = await laurel.admin.metrics.create([{ key: 'lessons', name: 'Lessons' }]);
  await laurel.admin.streak.set({ enabled: true, frequency: 'daily', metrics: [{ metricId: lessons!.id, threshold: 1 }] });
  const settings = await laurel.admin.retention.set({ controlRatio: 0.1, streakCustomization: true, recapEmails: { enabled: true, frequency: 'monthly' } });
  described(t, 'retention settings', typia.validateEquals<W.RetentionSettingsResponse>(settings));
  t.same(await laurel.admin.retention.get(), settings);
  await laurel.events.send('lessons', { user: { id: 'ada', tz: 'Europe/Paris' }, value: 2, attributes: undefined });
  const prefs = await laurel.users.updatePreferences('ada', { notifications: { recap: ['push'] }, streak: { evaluationMode: 'AND', metrics: [{ key: 'lessons', threshold: 2 }] } });
  described(t, 'preferences', typia.validateEquals<W.UserPreferencesResponse>(prefs));
  t.same(await laurel.users.preferences('ada'), prefs);
  const wrapped = await laurel.users.wrapped('ada', { year: 2026 });
  described(t, 'wrapped', typia.validateEquals<W.WrappedResponse>(wrapped));
  t.equal(wrapped.activity.entireYear.metrics.lessons!.currentTotal, 2);
});
