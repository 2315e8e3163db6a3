import t from 'tap';
import { startServer, TestServer } from './helpers/harness';
import { smtpPeer } from './helpers/smtp';
import { actingUser, sendDue } from './helpers/messages';

const EMAIL_TYPES = ['emails.achievement_due', 'emails.recap_due', 'emails.reactivation_due', 'emails.streak_reminder_due'];

/** Each type: its retention settings, and when a message is due for users active on 2026-03-10 at noon (UTC). */
const TYPES: Record<string, { retention: Record<string, unknown>; due: string; subject: RegExp }> = {
  achievement_completed: { retention: { achievementEmails: { enabled: true } }, due: '2026-03-10T17:30:00Z', subject: /unlocked First/ },
  recap: { retention: { recapEmails: { enabled: true, frequency: 'daily' } }, due: '2026-03-11T00:30:00Z', subject: /recap for 2026-03-10 to 2026-03-10/ },
  reactivation: { retention: { reactivationEmails: { enabled: true, days: [1] } }, due: '2026-03-12T00:30:00Z', subject: /We miss you, ON/ },
  streak_reminder: { retention: { streakReminderEmails: { enabled: true } }, due: '2026-03-11T20:30:00Z', subject: /Keep your 1-day streak alive/ },
};

const act = (s: TestServer, id: string) => actingUser(s, id, { email: `${id}@example.com` });
const pass = sendDue;

for (const [type, spec] of Object.entries(TYPES)) {
  t.test(`${type}: sent when enabled, to nobody in the control group or opted out, once across restarts and retries`, async (t) => {
    const s = await startServer(t, { MESSAGES_PER_SECOND: '1000' });
    const m = await s.metrics(['m']);
    await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: m.m!.id, threshold: 1 }] } });
    await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'first', name: 'First', trigger: 'metric', metricId: m.m!.id, metricValue: 1, status: 'active' }] });
    // The due webhooks keep working beside the messages.
    await s.call('POST', '/admin/v1/webhooks', { body: [{ url: 'http://127.0.0.1:9/hook', eventTypes: EMAIL_TYPES }] });
    const smtp = await smtpPeer(t);
    await s.call('PUT', '/admin/v1/channels/email', { body: { smtpUrl: smtp.url, from: { email: 'game@example.com' }, status: 'active' } });

    // 'ctl' joins while everyone new goes to the control group; then nobody new does.
    await s.call('PUT', '/admin/v1/retention', { body: { ...spec.retention, controlRatio: 1, defaultTimeZone: 'UTC' } });
    await act(s, 'ctl');
    await s.call('PUT', '/admin/v1/retention', { body: { ...spec.retention, controlRatio: 0, defaultTimeZone: 'UTC' } });
    await act(s, 'on');
    await act(s, 'out');
    // An achievement's message is queued with the event, before this opt-out: it is suppressed when due, not sent.
    t.equal((await s.call('PATCH', '/v1/users/out/preferences', { body: { notifications: { [type]: [] } } })).status, 200);
    const queued = type === 'achievement_completed' ? ['on', 'out'] : ['on'];

    smtp.fail(451);
    s.clock.set(Date.parse(spec.due));
    await pass(s);
    const log = async () => (await s.call('GET', `/admin/v1/messages?type=${type}`)).body as any[];
    t.same((await log()).map((x) => [x.userId, x.status]).sort(), queued.map((u) => [u, u === 'on' ? 'retrying' : 'suppressed']), 'one transient failure');

    // Another process takes over: the retry is in Postgres, and neither scheduler queues anything again.
    await s.app.messages.stop();
    const b = await startServer(t, { DATABASE_SCHEMA: s.schema, REDIS_KEY_PREFIX: s.prefix, ADMIN_API_KEY: s.adminKey, MESSAGES_PER_SECOND: '1000' });
    b.clock.set(Date.parse(spec.due) + 10 * 60_000);
    s.clock.set(b.clock.now());
    const tk = s.app.ctx.keys.tenant((await s.app.ctx.tenants.all())[0]!.slot);
    await s.app.ctx.redis.zadd(tk.retentionDue, 0, 'on', 0, 'ctl', 0, 'out');
    await Promise.all([s.app.scheduler.runOnce(), b.app.scheduler.runOnce()]);
    await b.app.messages.runOnce();

    t.same(smtp.received.map((x) => x.to[0]), ['on@example.com'], 'delivered once, to the one user it was for');
    t.match(smtp.received[0]!.headers.get('subject'), spec.subject);
    t.same((await log()).map((x) => [x.userId, x.status, x.attempts]).sort(), queued.map((u) => (u === 'on' ? [u, 'sent', 2] : [u, 'suppressed', 0])));
    const { rows } = await s.app.ctx.db.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE type = $1`, [`emails.${type === 'achievement_completed' ? 'achievement' : type}_due`]);
    t.equal(Number(rows[0]!.n), queued.length, 'the due webhook was queued too');

    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    t.match(metrics, new RegExp(`laurel_messages_total\\{channel="email",type="${type}",outcome="sent"\\} [1-9]`));
  });
}

t.test('erasure removes the messages and device tokens; the export shows them', async (t) => {
  const s = await startServer(t, { MESSAGES_PER_SECOND: '1000' });
  await s.metrics(['m']);
  const smtp = await smtpPeer(t);
  await s.call('PUT', '/admin/v1/channels/email', { body: { smtpUrl: smtp.url, from: { email: 'game@example.com' }, status: 'active' } });
  await s.call('PUT', '/admin/v1/retention', { body: { ...TYPES.reactivation!.retention, defaultTimeZone: 'UTC' } });
  await s.event('m', { user: { id: 'u', email: 'u@example.com', deviceTokens: ['ExpoPushToken[u]'] }, value: 1 });
  s.clock.set(Date.parse(TYPES.reactivation!.due));
  await pass(s);
  await s.app.flusher.drain();
  const exported = (await s.call('GET', '/admin/v1/users/u/export')).body;
  t.match(exported.messages, [{ type: 'reactivation', channel: 'email', status: 'sent', attempts: 1 }]);
  t.same(exported.profile.deviceTokens, ['ExpoPushToken[u]']);
  t.equal((await s.call('DELETE', '/admin/v1/users/u')).status, 200);
  t.same((await s.call('GET', '/admin/v1/messages?userId=u')).body, []);
  const { rows } = await s.app.ctx.db.query('SELECT 1 FROM messages');
  t.equal(rows.length, 0);
});
