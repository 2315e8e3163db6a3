import t from 'tap';
import http from 'node:http';
import http2 from 'node:http2';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, KeyObject, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startServer, TestServer } from './helpers/harness';
import { actingUser, sendDue } from './helpers/messages';
import { apnsTls } from '../src/messages/providers/apns';

type Teardown = { teardown(fn: () => unknown): void };

const DUE = Date.parse('2026-03-12T01:00:00Z');
const hex = (c: string) => c.repeat(64);

/** A JWT's claims when its signature verifies under the key (ES256 in JOSE's raw form, or RS256), else null. */
function verifiedClaims(jwt: string, key: KeyObject, alg: 'ES256' | 'RS256'): { header: any; claims: any } | null {
  const [h, c, sig] = jwt.split('.');
  const ok = verify('sha256', Buffer.from(`${h}.${c}`), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(sig!, 'base64url'));
  if (!ok) return null;
  const header = JSON.parse(Buffer.from(h!, 'base64url').toString());
  return header.alg === alg ? { header, claims: JSON.parse(Buffer.from(c!, 'base64url').toString()) } : null;
}

async function listen(t: Teardown, server: http.Server | http2.Http2SecureServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Apple's provider API as documented, over HTTP/2 with TLS (a certificate made here, its CA given to the sender). */
async function apnsPeer(t: Teardown) {
  const dir = mkdtempSync(path.join(tmpdir(), 'laurel-apns-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(dir, 'key.pem'),
    '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  const tlsKey = readFileSync(path.join(dir, 'key.pem'), 'utf8');
  rmSync(dir, { recursive: true });
  apnsTls.ca = cert;
  t.teardown(() => delete apnsTls.ca);

  const signing = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const seen: { token: string; topic: string; type: string; alert: any; status: number }[] = [];
  /** Scripted answers by token (else 200). */
  const answers = new Map<string, [number, string?][]>();
  const server = http2.createSecureServer({ key: tlsKey, cert });
  server.on('stream', (stream, headers) => {
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (body += c));
    stream.on('end', () => {
      const m = /^\/3\/device\/([^/]+)$/.exec(String(headers[':path']));
      const jwt = /^bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
      const token = jwt ? verifiedClaims(jwt, signing.publicKey, 'ES256') : null;
      const respond = (status: number, reason?: string) => {
        stream.respond({ ':status': status, ...(reason ? { 'content-type': 'application/json' } : {}) });
        stream.end(reason ? JSON.stringify({ reason }) : undefined);
      };
      if (!m || headers[':method'] !== 'POST') return respond(404, 'BadPath');
      if (!token || token.header.kid !== 'KEY123' || token.claims.iss !== 'TEAM123') return respond(403, 'InvalidProviderToken');
      if (headers['apns-topic'] !== 'com.example.app') return respond(400, 'BadTopic');
      const [status, reason] = answers.get(m[1]!)?.shift() ?? [200];
      seen.push({ token: m[1]!, topic: String(headers['apns-topic']), type: String(headers['apns-push-type']), alert: JSON.parse(body).aps.alert, status });
      respond(status, reason);
    });
  });
  const port = await listen(t, server);
  return {
    seen, answers,
    settings: {
      teamId: 'TEAM123', keyId: 'KEY123', bundleId: 'com.example.app', environment: 'sandbox',
      signingKey: signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), endpoint: `https://127.0.0.1:${port}`,
    },
  };
}

/** Google's token endpoint and FCM's messages:send. */
async function fcmPeer(t: Teardown) {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sent: { token: string; notification: any }[] = [];
  let grants = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.url === '/token') {
        const form = new URLSearchParams(body);
        const a = verifiedClaims(form.get('assertion') ?? '', rsa.publicKey, 'RS256');
        const ok = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && a
          && a.claims.iss === 'svc@proj.iam.gserviceaccount.com' && a.claims.aud === `http://127.0.0.1:${port}/token`
          && a.claims.scope === 'https://www.googleapis.com/auth/firebase.messaging' && a.claims.exp > a.claims.iat;
        if (!ok) return json(400, { error: 'invalid_grant' });
        grants++;
        return json(200, { access_token: 'ya29.test', expires_in: 3600, token_type: 'Bearer' });
      }
      if (req.url !== '/v1/projects/proj/messages:send') return json(404, { error: { status: 'NOT_FOUND' } });
      if (req.headers.authorization !== 'Bearer ya29.test') return json(401, { error: { status: 'UNAUTHENTICATED' } });
      const m = JSON.parse(body).message;
      if (m.token === 'dead-fcm-token') {
        return json(404, { error: { code: 404, status: 'NOT_FOUND', details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }] } });
      }
      sent.push(m);
      json(200, { name: `projects/proj/messages/${sent.length}` });
    });
  });
  const port = await listen(t, server);
  return {
    sent, grants: () => grants,
    settings: {
      serviceAccount: {
        type: 'service_account', project_id: 'proj', private_key_id: 'kid-1', client_email: 'svc@proj.iam.gserviceaccount.com',
        private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), token_uri: `http://127.0.0.1:${port}/token`,
      },
      endpoint: `http://127.0.0.1:${port}`,
    },
  };
}

/** Expo's push API: one ticket per message, in order. */
async function expoPeer(t: Teardown) {
  const received: { to: string; title: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(req.url === '/--/api/v2/push/send' && req.headers.authorization === 'Bearer expo-access' ? 200 : 401, { 'Content-Type': 'application/json' });
      if (req.url !== '/--/api/v2/push/send' || req.headers.authorization !== 'Bearer expo-access') return res.end('{}');
      const messages = JSON.parse(body) as { to: string; title: string; body: string }[];
      received.push(...messages);
      res.end(JSON.stringify({
        data: messages.map((m, i) => (m.to.includes('dead')
          ? { status: 'error', message: `"${m.to}" is not a registered push notification recipient`, details: { error: 'DeviceNotRegistered' } }
          : { status: 'ok', id: `ticket-${i}` })),
      }));
    });
  });
  const port = await listen(t, server);
  return { received, settings: { accessToken: 'expo-access', endpoint: `http://127.0.0.1:${port}` } };
}

/** A server sending reactivation messages by push after one day. */
async function setup(t: Teardown) {
  const s = await startServer(t, { MESSAGES_PER_SECOND: '1000' });
  await s.metrics(['m']);
  await s.call('PUT', '/admin/v1/retention', { body: { reactivationEmails: { enabled: true, days: [1] }, notificationDefaults: { reactivation: ['push'] }, defaultTimeZone: 'UTC' } });
  await s.call('PUT', '/admin/v1/templates/reactivation', {
    body: { email: { subject: 's', html: 'h' }, push: { title: 'Back, {{ user.name }}?', body: 'Day {{ reactivation.daysSinceLastActive }}' } },
  });
  return s;
}

const pushUser = (s: TestServer, id: string, deviceTokens: string[]) => actingUser(s, id, { deviceTokens });
const send = sendDue;

const entries = async (s: TestServer, userId: string) => (await s.call('GET', `/admin/v1/messages?userId=${userId}`)).body as any[];
const tokensOf = async (s: TestServer, userId: string) => (await s.call('GET', `/v1/users/${userId}`)).body.deviceTokens;

t.test('APNs: provider token, topic, alert push type; 410 removes the token, 429 is retried', async (t) => {
  const s = await setup(t);
  const apns = await apnsPeer(t);
  const put = await s.call('PUT', '/admin/v1/channels/apns', { body: apns.settings });
  t.equal(put.status, 200);
  t.equal(put.body.signingKey, '[redacted]');
  await pushUser(s, 'ok', [hex('a')]);
  await pushUser(s, 'gone', [hex('b')]);
  await pushUser(s, 'busy', [hex('c')]);
  apns.answers.set(hex('b'), [[410, 'Unregistered']]);
  apns.answers.set(hex('c'), [[429, 'TooManyProviderTokenUpdates']]);
  s.clock.set(DUE);
  await send(s);
  t.same(apns.seen.find((x) => x.token === hex('a')), { token: hex('a'), topic: 'com.example.app', type: 'alert', alert: { title: 'Back, OK?', body: 'Day 1' }, status: 200 });
  t.match((await entries(s, 'ok'))[0], { channel: 'apns', status: 'sent', attempts: 1, lastResponse: '200' });
  t.match((await entries(s, 'gone'))[0], { channel: 'apns', status: 'failed', lastResponse: '410 Unregistered' });
  t.same(await tokensOf(s, 'gone'), null, 'the dead token is gone from the user');
  t.match((await entries(s, 'busy'))[0], { status: 'retrying', attempts: 1, lastResponse: /^429/ });
  s.clock.set(DUE + 5 * 60_000);
  await s.app.messages.runOnce();
  t.match((await entries(s, 'busy'))[0], { status: 'sent', attempts: 2 });
  t.equal(apns.seen.filter((x) => x.token === hex('c')).length, 2);
  t.same(await tokensOf(s, 'busy'), [hex('c')], 'a throttled token stays');

  const test = await s.call('POST', '/admin/v1/channels/apns/test', { body: { userId: 'ok' } });
  t.same(test.body, { status: 'sent', response: '200' });
  t.equal((await s.call('POST', '/admin/v1/channels/apns/test', { body: { userId: 'gone' } })).status, 422, 'no token left');
});

t.test('FCM: a signed assertion to the token_uri, then messages:send; UNREGISTERED removes the token', async (t) => {
  const s = await setup(t);
  const fcm = await fcmPeer(t);
  const put = await s.call('PUT', '/admin/v1/channels/fcm', { body: fcm.settings });
  t.equal(put.status, 200);
  t.match(put.body.serviceAccount, { private_key: '[redacted]', private_key_id: '[redacted]', client_email: 'svc@proj.iam.gserviceaccount.com' });
  await pushUser(s, 'ok', ['fcm-good-token']);
  await pushUser(s, 'gone', ['dead-fcm-token', 'fcm-other']);
  s.clock.set(DUE);
  await send(s);
  t.same(fcm.sent.map((m) => [m.token, m.notification]).sort(), [
    ['fcm-good-token', { title: 'Back, OK?', body: 'Day 1' }], ['fcm-other', { title: 'Back, GONE?', body: 'Day 1' }],
  ]);
  t.equal(fcm.grants(), 1, 'one access token, reused');
  t.match((await entries(s, 'ok'))[0], { channel: 'fcm', status: 'sent' });
  t.match((await entries(s, 'gone'))[0], { channel: 'fcm', status: 'sent', lastResponse: /UNREGISTERED/ });
  t.same(await tokensOf(s, 'gone'), ['fcm-other'], 'only the dead token is removed');
});

t.test('Expo: one ticket per device; DeviceNotRegistered removes the token', async (t) => {
  const s = await setup(t);
  const expo = await expoPeer(t);
  t.equal((await s.call('PUT', '/admin/v1/channels/expo', { body: expo.settings })).status, 200);
  await pushUser(s, 'u', ['ExponentPushToken[alive]', 'ExponentPushToken[dead]']);
  s.clock.set(DUE);
  await send(s);
  t.same(expo.received.map((m) => [m.to, m.title]), [['ExponentPushToken[alive]', 'Back, U?'], ['ExponentPushToken[dead]', 'Back, U?']]);
  t.match((await entries(s, 'u'))[0], { channel: 'expo', status: 'sent', attempts: 1 });
  t.same(await tokensOf(s, 'u'), ['ExponentPushToken[alive]']);
  t.match((await s.call('POST', '/admin/v1/channels/expo/test', { body: { userId: 'u' } })).body, { status: 'sent' });
});

t.test('routing: Expo tokens to Expo; with APNs and FCM both, 64 hex digits to APNs and the rest to FCM', async (t) => {
  const s = await setup(t);
  const [apns, fcm, expo] = [await apnsPeer(t), await fcmPeer(t), await expoPeer(t)];
  await s.call('PUT', '/admin/v1/channels/apns', { body: apns.settings });
  await s.call('PUT', '/admin/v1/channels/fcm', { body: fcm.settings });
  await s.call('PUT', '/admin/v1/channels/expo', { body: expo.settings });
  await pushUser(s, 'u', [hex('d'), 'android-token', 'ExpoPushToken[x]']);
  s.clock.set(DUE);
  await send(s);
  t.same((await entries(s, 'u')).map((m) => m.channel).sort(), ['apns', 'expo', 'fcm']);
  t.same(apns.seen.map((x) => x.token), [hex('d')]);
  t.same(fcm.sent.map((x) => x.token), ['android-token']);
  t.same(expo.received.map((x) => x.to), ['ExpoPushToken[x]']);
  await send(s);
  t.equal((await entries(s, 'u')).length, 3, 'once only');
});
