import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { getChannel } from '../src/store/messages';
import { startServer, TestServer } from './helpers/harness';

// Message channels and templates in the configuration document: in it without their credentials, and
// applied over a tenant's own credentials.

const pem = (type: 'ec' | 'rsa') =>
  (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 })).privateKey
    .export({ type: 'pkcs8', format: 'pem' }).toString();

/** One tenant's credentials: each channel's secret, distinct per tenant. */
function credentials(name: string) {
  return { smtpPassword: `${name}-smtp-pass`, p8: pem('ec'), fcmKey: pem('rsa'), fcmKeyId: `${name}-key-id`, expoToken: `${name}-expo-token` };
}
type Credentials = ReturnType<typeof credentials>;

/** Channels (every field differing by `variant` apart from the SMTP user) through the Admin API. */
async function channels(s: TestServer, tenant: string, c: Credentials, variant: string): Promise<void> {
  const bodies = {
    email: { smtpUrl: `smtp://mailer:${c.smtpPassword}@${variant}.mail.test:587`, from: { email: `game@${variant}.test`, name: 'The Game' }, status: 'active' },
    apns: { teamId: 'TEAM123', keyId: 'KEY123', bundleId: `com.${variant}.app`, environment: 'sandbox', signingKey: c.p8 },
    fcm: {
      serviceAccount: { type: 'service_account', project_id: variant, private_key_id: c.fcmKeyId, private_key: c.fcmKey, client_email: `svc@${variant}.test`, token_uri: 'https://oauth2.googleapis.com/token' },
    },
    expo: { accessToken: c.expoToken, endpoint: `https://${variant}.expo.test` },
  };
  for (const [kind, body] of Object.entries(bodies)) {
    const r = await s.call('PUT', `/admin/v1/channels/${kind}`, { body, tenant });
    if (r.status !== 200) throw new Error(`${kind}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

const template = (word: string) => ({
  email: { subject: `${word} {{ user.name }}`, html: `<p>${word}</p>`, text: word },
  push: { title: word, body: `${word}!` },
});

async function templates(s: TestServer, tenant: string, word: string): Promise<void> {
  for (const type of ['streak_reminder', 'achievement_completed']) {
    const r = await s.call('PUT', `/admin/v1/templates/${type}`, { body: template(`${word} ${type}`), tenant });
    if (r.status !== 200) throw new Error(`${type}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

async function tenant(s: TestServer, customerId: string): Promise<string> {
  const r = await s.call('POST', '/admin/v1/tenants', { body: [{ customerId, name: customerId }] });
  if (r.status !== 201) throw new Error(`tenant setup failed: ${JSON.stringify(r.body)}`);
  return (await s.app.ctx.db.query<{ id: string }>('SELECT id FROM tenants WHERE customer_id = $1', [customerId])).rows[0]!.id;
}

const pull = async (s: TestServer, tenant?: string) => {
  const r = await s.call('GET', '/admin/v1/config', { tenant });
  if (r.status !== 200) throw new Error(`pull: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const text = (doc: any) => JSON.stringify({ ...doc, version: 0 });
const secretsOf = (c: Credentials): [string, string][] => [['SMTP password', c.smtpPassword], ['.p8 key', c.p8], ['FCM private key', c.fcmKey], ['FCM key id', c.fcmKeyId], ['Expo token', c.expoToken]];
/** The secret's distinctive part (a PEM's base64 body, JSON-escaped or not, contains its second line). */
const marker = (secret: string) => secret.split('\n')[1] ?? secret;

t.test('round trip between two tenants: same document, and the target keeps its own credentials', async (t) => {
  const s = await startServer(t);
  const staging = credentials('staging');
  const prod = credentials('prod');
  await channels(s, '', staging, 'staging');
  await templates(s, '', 'Staging');
  const prodId = await tenant(s, 'prod');
  await channels(s, 'prod', prod, 'prod');
  await templates(s, 'prod', 'Prod');

  const doc = await pull(s);
  t.same(doc.resources.channels.map((c: any) => c.channel), ['email', 'apns', 'fcm', 'expo'], 'channels in a fixed order');
  t.same(doc.resources.templates.map((x: any) => x.type), ['achievement_completed', 'streak_reminder'], 'own templates in the preference-type order');
  t.same(doc.resources.channels[0], {
    channel: 'email', smtpUrl: 'smtp://mailer@staging.mail.test:587', from: { email: 'game@staging.test', name: 'The Game' }, status: 'active',
  }, 'the SMTP URL keeps its user, not its password');
  t.same(doc.resources.channels[2].serviceAccount, {
    project_id: 'staging', client_email: 'svc@staging.test', token_uri: 'https://oauth2.googleapis.com/token', type: 'service_account',
  });
  t.same(doc.resources.channels[3], { channel: 'expo', endpoint: 'https://staging.expo.test' });
  t.equal(text(await pull(s)), text(doc), 'two pulls are byte-identical');

  const pushed = await s.call('PUT', '/admin/v1/config', { body: doc, tenant: 'prod' });
  t.equal(pushed.status, 200);
  t.same(pushed.body.updates.map((u: any) => `${u.kind}:${u.key}`), ['channels:email', 'channels:apns', 'channels:fcm', 'channels:expo', 'templates:achievement_completed', 'templates:streak_reminder']);
  t.equal(text(await pull(s, 'prod')), text(doc), 'the target pulls the same document');

  const { db, secrets } = s.app.ctx;
  const email = await getChannel(db, secrets, prodId, 'email');
  t.equal(email!.smtpUrl, `smtp://mailer:${prod.smtpPassword}@staging.mail.test:587`, "the target's SMTP password, on the document's host");
  t.equal((await getChannel(db, secrets, prodId, 'apns'))!.signingKey, prod.p8);
  const fcm = (await getChannel(db, secrets, prodId, 'fcm'))!.serviceAccount;
  t.same([fcm.private_key, fcm.private_key_id, fcm.project_id], [prod.fcmKey, prod.fcmKeyId, 'staging']);
  t.equal((await getChannel(db, secrets, prodId, 'expo'))!.accessToken, prod.expoToken);
  t.equal((await getChannel(db, secrets, (await s.app.ctx.db.query('SELECT id FROM tenants WHERE is_default')).rows[0].id, 'apns'))!.signingKey, staging.p8, 'the source keeps its own');

  t.equal((await s.call('PUT', '/admin/v1/config', { body: doc, tenant: 'prod' })).body.updates.length, 0, 'applying it again changes nothing');

  // No credential of either tenant in what the configuration API answers or records.
  const seen = [
    text(doc), text(await pull(s, 'prod')), JSON.stringify(pushed.body),
    JSON.stringify((await s.call('GET', '/admin/v1/config/history', { tenant: 'prod' })).body),
    JSON.stringify((await s.call('GET', '/admin/v1/audit-log?limit=500')).body),
  ].join('\n');
  for (const [name, secret] of [...secretsOf(staging), ...secretsOf(prod)]) t.notOk(seen.includes(marker(secret)), `no ${name}`);
});

t.test('a channel the target lacks: created without credentials where it needs none, refused where it does', async (t) => {
  const s = await startServer(t);
  await channels(s, '', credentials('staging'), 'staging');
  await tenant(s, 'fresh');
  const doc = await pull(s);
  const before = text(await pull(s, 'fresh'));
  const r = await s.call('PUT', '/admin/v1/config', { body: doc, tenant: 'fresh' });
  t.equal(r.status, 422);
  t.same(r.body.problems.map((p: any) => p.path), ['resources.channels[0].smtpUrl', 'resources.channels[1].signingKey', 'resources.channels[2].serviceAccount.private_key']);
  t.match(r.body.problems[1].message, /PUT \/admin\/v1\/channels\/apns/);
  t.equal(text(await pull(s, 'fresh')), before, 'nothing applied');

  // Expo's token is optional; an SMTP server without a user needs no password.
  const open = { resources: { channels: [{ channel: 'email', smtpUrl: 'smtp://relay.test:25', from: { email: 'a@b.test' }, status: 'inactive' }, doc.resources.channels[3]] } };
  t.equal((await s.call('PUT', '/admin/v1/config', { body: open, tenant: 'fresh' })).status, 200);
  t.same((await pull(s, 'fresh')).resources.channels, open.resources.channels);
  t.same((await s.call('GET', '/admin/v1/channels/expo', { tenant: 'fresh' })).body, { endpoint: 'https://staging.expo.test' });
});

t.test('a document carrying a credential is refused', async (t) => {
  const s = await startServer(t);
  const c = credentials('staging');
  await channels(s, '', c, 'staging');
  const doc = await pull(s);
  const before = text(doc);
  const cases: [(ch: any[]) => void, string][] = [
    [(ch) => (ch[0].smtpUrl = 'smtp://mailer:pw@staging.mail.test:587'), 'resources.channels[0].smtpUrl'],
    [(ch) => (ch[1].signingKey = c.p8), 'resources.channels[1].signingKey'],
    [(ch) => (ch[2].serviceAccount.private_key = c.fcmKey), 'resources.channels[2].serviceAccount'],
    [(ch) => (ch[3].accessToken = 'x'), 'resources.channels[3].accessToken'],
  ];
  for (const [edit, path] of cases) {
    const d = JSON.parse(before);
    edit(d.resources.channels);
    const r = await s.call('PUT', '/admin/v1/config', { body: d });
    t.equal(r.status, 422, path);
    t.same(r.body.problems?.map((p: any) => p.path), [path]);
  }
  const bad = JSON.parse(before);
  bad.resources.templates = [{ type: 'recap', ...template('{% if %}') }];
  const r = await s.call('PUT', '/admin/v1/config', { body: bad });
  t.equal(r.status, 422, 'a template the Admin API refuses is refused');
  t.same(r.body.problems?.map((p: any) => p.path), ['resources.templates[0]']);
  t.equal(text(await pull(s)), before, 'nothing applied');
});

t.test('plan lists exactly the changed fields of a channel and a template; prune removes a channel and resets a template', async (t) => {
  const s = await startServer(t);
  await channels(s, '', credentials('staging'), 'staging');
  await templates(s, '', 'Staging');
  const doc = await pull(s);
  const changed = JSON.parse(JSON.stringify(doc));
  changed.resources.channels[1].environment = 'production';
  changed.resources.templates[1].push.title = 'Keep it up';
  const plan = await s.call('POST', '/admin/v1/config/plan', { body: changed });
  t.equal(plan.status, 200);
  t.same(plan.body, {
    version: doc.version, creations: [], deletions: [],
    updates: [
      { kind: 'channels', key: 'apns', changes: [{ field: 'environment', before: 'sandbox', after: 'production' }] },
      { kind: 'templates', key: 'streak_reminder', changes: [{ field: 'push', before: doc.resources.templates[1].push, after: changed.resources.templates[1].push }] },
    ],
  });
  t.equal(text(await pull(s)), text(doc), 'a plan applies nothing');

  const lacking = JSON.parse(JSON.stringify(doc));
  lacking.resources.channels = lacking.resources.channels.filter((c: any) => c.channel !== 'expo');
  lacking.resources.templates = lacking.resources.templates.filter((x: any) => x.type !== 'achievement_completed');
  t.same((await s.call('PUT', '/admin/v1/config', { body: lacking })).body.deletions, [], 'nothing removed without prune');
  const pruned = await s.call('PUT', '/admin/v1/config?prune=true', { body: lacking });
  t.same(pruned.body.deletions.map((d: any) => `${d.kind}:${d.key}`), ['channels:expo', 'templates:achievement_completed']);
  t.equal((await s.call('GET', '/admin/v1/channels/expo')).status, 404);
  const listed = (await s.call('GET', '/admin/v1/templates')).body;
  t.same(listed.filter((x: any) => !x.default).map((x: any) => x.type), ['streak_reminder'], 'the pruned template is back to the default');
  t.equal(text(await pull(s)), text(lacking));
});
