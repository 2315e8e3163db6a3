import t from 'tap';
import { startServer, TestServer } from './helpers/harness';
import { smtpPeer } from './helpers/smtp';
import { actingUser, sendDue } from './helpers/messages';
import { Pacer } from '../src/messages/pacer';

const REACTIVATION = { reactivationEmails: { enabled: true, days: [1] } };
/** Two days after the first event (2026-03-10): a one-day reactivation message is due. */
const DUE = Date.parse('2026-03-12T01:00:00Z');

async function setup(t: { teardown(fn: () => unknown): void }, retention: Record<string, unknown> = REACTIVATION) {
  const s = await startServer(t, { PUBLIC_URL: 'https://laurel.example/base/', MESSAGES_PER_SECOND: '1000' });
  await s.metrics(['m']);
  await s.attributes([{ key: 'nick', type: 'user' }]);
  const r = await s.call('PUT', '/admin/v1/retention', { body: { defaultTimeZone: 'UTC', ...retention } });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  const smtp = await smtpPeer(t);
  const c = await s.call('PUT', '/admin/v1/channels/email', {
    body: { smtpUrl: smtp.url, from: { email: 'game@example.com', name: 'The Game' }, replyTo: 'help@example.com', status: 'active' },
  });
  if (c.status !== 200) throw new Error(JSON.stringify(c.body));
  return { s, smtp };
}

const user = (s: TestServer, id: string, extra: Record<string, unknown> = {}) => actingUser(s, id, { email: `${id}@example.com`, ...extra });
const send = sendDue;

const log = async (s: TestServer, query = '') => (await s.call('GET', `/admin/v1/messages${query}`)).body as any[];

const TEMPLATE = {
  email: {
    subject: 'We miss you, {{ user.name }} <{{ user.attributes.nick }}>',
    html: '<p>Hello {{ user.attributes.nick }}</p><p>Day {{ reactivation.daysSinceLastActive }}</p>',
    text: 'Hello {{ user.attributes.nick }}, day {{ reactivation.daysSinceLastActive }}. {{ unsubscribeUrl }}',
  },
  push: { title: 'Come back', body: '{{ user.attributes.nick }}' },
};

t.test('channels: credentials sealed at rest, redacted in every answer, removable', async (t) => {
  const { s, smtp } = await setup(t);
  const got = await s.call('GET', '/admin/v1/channels/email');
  t.equal(got.status, 200);
  t.same(got.body, {
    smtpUrl: `smtp://mailer:[redacted]@127.0.0.1:${smtp.port}`, from: { email: 'game@example.com', name: 'The Game' }, replyTo: 'help@example.com', status: 'active',
  });
  const { rows } = await s.app.ctx.db.query<{ settings: string }>('SELECT settings FROM message_channels');
  t.equal(rows.length, 1);
  t.notOk(rows[0]!.settings.includes('s3cret'), 'the password is not in Postgres in clear');
  t.match(rows[0]!.settings, /^enc:v1:/);

  const expo = await s.call('PUT', '/admin/v1/channels/expo', { body: { accessToken: 'expo-secret-token', endpoint: 'http://127.0.0.1:9' } });
  t.equal(expo.status, 200);
  t.same(expo.body, { accessToken: '[redacted]', endpoint: 'http://127.0.0.1:9' });
  t.notOk(JSON.stringify((await s.call('GET', '/admin/v1/channels/expo')).body).includes('expo-secret-token'));

  t.equal((await s.call('PUT', '/admin/v1/channels/apns', {
    body: { teamId: 'T', keyId: 'K', bundleId: 'b', signingKey: 'not a key', environment: 'sandbox' },
  })).status, 422, 'a signing key that is not a PEM key');
  t.equal((await s.call('PUT', '/admin/v1/channels/email', { body: { smtpUrl: 'http://x', from: { email: 'a@b.co' }, status: 'active' } })).status, 422);
  t.equal((await s.call('PUT', '/admin/v1/channels/email', { body: { smtpUrl: 'smtp://h', from: { email: 'nope' }, status: 'active' } })).status, 422);
  t.equal((await s.call('GET', '/admin/v1/channels/fcm')).status, 404, 'not configured');
  t.equal((await s.call('GET', '/admin/v1/channels/email', { key: null })).status, 401, 'admin key needed');

  t.same((await s.call('DELETE', '/admin/v1/channels/expo')).body, { removed: 'expo' });
  t.equal((await s.call('GET', '/admin/v1/channels/expo')).status, 404);
  t.equal((await s.call('DELETE', '/admin/v1/channels/expo')).status, 404);
});

t.test('templates: shipped defaults, Liquid checked on save, HTML escaped, no way out of the sandbox', async (t) => {
  const { s } = await setup(t);
  await user(s, 'u1', { attributes: { nick: '<b>Bo & "Co"</b>' } });
  const list = await s.call('GET', '/admin/v1/templates');
  t.same(list.body.map((x: any) => [x.type, x.default]), [['achievement_completed', true], ['recap', true], ['reactivation', true], ['streak_reminder', true]]);
  t.ok(list.body.every((x: any) => x.email.subject && x.email.html && x.push.title && x.push.body), 'every default has every part');

  const bad = await s.call('PUT', '/admin/v1/templates/reactivation', { body: { ...TEMPLATE, email: { ...TEMPLATE.email, html: '{% if %}' } } });
  t.equal(bad.status, 422);
  t.match(bad.body.error, /email\.html/);
  t.equal((await s.call('PUT', '/admin/v1/templates/nope', { body: TEMPLATE })).status, 404);

  const put = await s.call('PUT', '/admin/v1/templates/reactivation', { body: TEMPLATE });
  t.equal(put.status, 200);
  t.match(put.body, { type: 'reactivation', default: false, email: TEMPLATE.email });

  const preview = await s.call('POST', '/admin/v1/templates/reactivation/preview', { body: { userId: 'u1' } });
  t.equal(preview.status, 200);
  t.equal(preview.body.email.html, '<p>Hello &lt;b&gt;Bo &amp; &#34;Co&#34;&lt;/b&gt;</p><p>Day 1</p>', 'values in the HTML part are escaped');
  t.equal(preview.body.email.subject, 'We miss you, U1 <<b>Bo & "Co"</b>>', 'the subject is plain text');
  t.same(preview.body.push, { title: 'Come back', body: '<b>Bo & "Co"</b>' });
  t.equal((await s.call('POST', '/admin/v1/templates/reactivation/preview', { body: { userId: 'ghost' } })).status, 404);
  const draft = await s.call('POST', '/admin/v1/templates/recap/preview', {
    body: { userId: 'u1', template: { ...TEMPLATE, email: { ...TEMPLATE.email, subject: 'Draft for {{ user.id }}' } } },
  });
  t.equal(draft.body.email.subject, 'Draft for u1', 'a draft is rendered');
  t.equal((await s.call('GET', '/admin/v1/templates')).body[1].default, true, 'and not saved');
  t.equal((await s.call('POST', '/admin/v1/templates/recap/preview', { body: { userId: 'u1', template: { ...TEMPLATE, push: { title: '{{', body: '' } } } })).status, 422);

  // Nothing outside the variables: no prototype, no process, no files.
  for (const probe of ['{{ user.constructor.name }}', '{{ process.env.HOME }}', "{% include '/etc/passwd' %}", "{% render 'package.json' %}", '{{ user | json }}x{{ global }}']) {
    const p = await s.call('PUT', '/admin/v1/templates/recap', { body: { ...TEMPLATE, email: { ...TEMPLATE.email, html: probe } } });
    if (p.status === 422) continue;
    const r = await s.call('POST', '/admin/v1/templates/recap/preview', { body: { userId: 'u1' } });
    t.equal(r.status, 422, `${probe}: refused`);
    t.notOk(JSON.stringify(r.body).includes(process.env.HOME ?? '/root'), `${probe}: reveals nothing`);
  }
  t.same((await s.call('DELETE', '/admin/v1/templates/recap')).body, { removed: 'recap' });
  t.equal((await s.call('GET', '/admin/v1/templates')).body[1].default, true, 'back to the default');
});

t.test('email: authenticated, rendered, with one-click unsubscribe headers; the preview matches what is sent', async (t) => {
  const { s, smtp } = await setup(t);
  await s.call('PUT', '/admin/v1/templates/reactivation', { body: TEMPLATE });
  await user(s, 'u1', { attributes: { nick: 'Bo' } });
  s.clock.set(DUE);
  const preview = (await s.call('POST', '/admin/v1/templates/reactivation/preview', { body: { userId: 'u1' } })).body;
  await send(s);
  t.equal(smtp.received.length, 1);
  const m = smtp.received[0]!;
  t.equal(m.user, 'mailer', 'logged in');
  t.same(m.to, ['u1@example.com']);
  t.equal(m.from, 'game@example.com');
  t.equal(m.headers.get('subject'), 'We miss you, U1 <Bo>');
  t.equal(m.headers.get('reply-to'), 'help@example.com');
  const unsubscribe = m.headers.get('list-unsubscribe')!;
  t.match(unsubscribe, /^<https:\/\/laurel\.example\/base\/u\/[\w-]+\.[\w-]+>$/);
  t.equal(m.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
  t.match(m.raw, /Content-Type: text\/plain/);
  t.match(m.raw, /Content-Type: text\/html/);
  t.ok(m.raw.includes('<p>Hello Bo</p><p>Day 1</p>'), 'the HTML part');
  t.ok(m.raw.includes('Hello Bo, day 1.'), 'the text part');
  t.equal(preview.email.subject, m.headers.get('subject'));
  t.ok(m.raw.includes(preview.email.html), 'the preview is what was sent');
  t.ok(preview.email.text.includes(unsubscribe.slice(1, -1)), 'same unsubscribe link');

  const [entry] = await log(s);
  t.match(entry, { userId: 'u1', type: 'reactivation', channel: 'email', status: 'sent', attempts: 1, lastResponse: /250/ });
  t.same(Object.keys(entry).sort(), ['attempts', 'channel', 'createdAt', 'id', 'lastResponse', 'status', 'type', 'updatedAt', 'userId']);
  await send(s);
  t.equal(smtp.received.length, 1, 'once only');

  // One click (a plain POST, as a mail client sends it): no more reactivation emails; the other types keep email.
  const path = new URL(unsubscribe.slice(1, -1)).pathname.replace('/base', '');
  const click = await fetch(s.url + path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
  t.equal(click.status, 200);
  const prefs = (await s.call('GET', '/v1/users/u1/preferences')).body.notifications;
  t.same(prefs, { achievement_completed: ['email'], recap: ['email'], reactivation: [], streak_reminder: ['email'] });
  const forged = path.slice(0, -3) + (path.endsWith('AAA') ? 'BBB' : 'AAA');
  t.equal((await fetch(s.url + forged, { method: 'POST' })).status, 404, 'a forged token does nothing');

  // The preferences page switches types back on (the same preferences as the API).
  const page = await fetch(s.url + path);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  const html = await page.text();
  t.match(html, /name="reactivation" value="email"(?! checked)/);
  t.match(html, /name="recap" value="email" [^>]*checked/);
  const saved = await fetch(`${s.url}${path}/preferences`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'reactivation=email&reactivation=push&recap=push',
  });
  t.equal(saved.status, 200);
  t.same((await s.call('GET', '/v1/users/u1/preferences')).body.notifications, {
    achievement_completed: [], recap: ['push'], reactivation: ['email', 'push'], streak_reminder: [],
  });
});

t.test('email: a 4xx is retried and delivered once; a 5xx fails and is not retried', async (t) => {
  const { s, smtp } = await setup(t);
  await user(s, 'soft');
  smtp.fail(451);
  s.clock.set(DUE);
  await send(s);
  t.equal(smtp.received.length, 0);
  t.match((await log(s))[0], { status: 'retrying', attempts: 1, lastResponse: /451/ });
  s.clock.set(DUE + 30_000);
  await s.app.messages.runOnce();
  t.equal(smtp.received.length, 0, 'not before its time');
  // The first retry comes within minutes.
  s.clock.set(DUE + 3 * 60_000);
  await s.app.messages.runOnce();
  t.equal(smtp.received.length, 1);
  t.match((await log(s))[0], { status: 'sent', attempts: 2 });
  s.clock.set(DUE + 3_600_000);
  await s.app.messages.runOnce();
  t.equal(smtp.received.length, 1, 'delivered once');

  await user(s, 'hard');
  smtp.fail(550);
  s.clock.set(DUE + 2 * 86_400_000 + 3_600_000);
  await send(s);
  const hard = (await log(s, '?userId=hard'))[0];
  t.match(hard, { status: 'failed', attempts: 1, lastResponse: /550/ });
  s.clock.set(DUE + 4 * 86_400_000);
  await s.app.messages.runOnce();
  t.match((await log(s, '?userId=hard'))[0], { status: 'failed', attempts: 1 }, 'not retried');
  t.equal(smtp.received.filter((m) => m.to[0] === 'hard@example.com').length, 0);
  t.same((await log(s, '?status=failed')).map((m: any) => m.userId), ['hard']);
  t.equal((await s.call('GET', '/admin/v1/messages?status=nope')).status, 422);

  // A wrong password is the relay's 535: permanent.
  await s.call('PUT', '/admin/v1/channels/email', { body: { smtpUrl: smtp.url.replace('s3cret-pass', 'wrong'), from: { email: 'game@example.com' }, status: 'active' } });
  const test = await s.call('POST', '/admin/v1/channels/email/test', { body: { userId: 'soft' } });
  t.match(test.body, { status: 'failed', response: /535/ });
});

t.test("Trophy's rule: subscribing to emails needs an address", async (t) => {
  const s = await startServer(t);
  const r = await s.call('POST', '/v1/users', { body: { id: 'x', subscribeToEmails: true } });
  t.equal(r.status, 422);
  t.match(r.body.error, /email/);
  t.equal((await s.call('POST', '/v1/users', { body: { id: 'y', email: 'y@example.com', subscribeToEmails: true } })).status, 201);
  t.equal((await s.call('PATCH', '/v1/users/y', { body: { subscribeToEmails: true } })).status, 200, 'an address stored before');
  t.equal((await s.call('PATCH', '/v1/users/y', { body: { subscribeToEmails: false } })).status, 200);
});

t.test("the sending rate: each tenant's messages spaced to MESSAGES_PER_SECOND, tenants apart", async (t) => {
  let now = 1000;
  const waits: string[] = [];
  const pacer = new Pacer(4, () => now, async (ms) => {
    waits.push(`${ms}`);
    now += ms;
  });
  for (let i = 0; i < 3; i++) await pacer.take('a');
  t.same(waits, ['250', '250'], 'four a second: a quarter of a second apart');
  await pacer.take('b');
  t.same(waits, ['250', '250'], 'another tenant does not wait for the first');
  now += 10_000;
  await pacer.take('a');
  t.same(waits.length, 2, 'after a pause, at once (no burst saved up beyond one)');
  await pacer.take('a');
  t.same(waits, ['250', '250', '250']);
});
