import t from 'tap';
import http from 'node:http';
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { startServer, TestServer } from './helpers/harness';
import { processDeployment, spawnServer, until } from './helpers/process';
import { SecretBox } from '../src/domain/secret-box';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const rawSecret = async (s: TestServer, id: string) => (await s.app.ctx.db.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [id])).rows[0]!.secret;
const webhook = async (s: TestServer, url = 'http://127.0.0.1:9/hook') =>
  (await s.call('POST', '/admin/v1/webhooks', { body: [{ url, eventTypes: ['achievement.completed'] }] })).body.created[0] as { id: string; secret: string };

t.test('webhook secrets are sealed in Postgres, and deliveries are still signed with them', async (t) => {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const rx = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c)).on('end', () => (got.push({ headers: req.headers, body }), res.writeHead(200).end()));
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  t.teardown(() => (rx.closeAllConnections(), rx.close()));

  const s = await startServer(t, { WEBHOOK_POLL_MS: '3600000' });
  const hook = await webhook(s, `http://127.0.0.1:${(rx.address() as AddressInfo).port}/hook`);
  const raw = await rawSecret(s, hook.id);
  t.ok(SecretBox.isSealed(raw), 'the column holds a sealed value');
  t.notOk(raw.includes(hook.secret) || raw.includes(hook.secret.slice(6)), 'and not the secret');
  t.equal(s.app.ctx.secrets.open(raw), hook.secret);

  const rotated = (await s.call('POST', `/admin/v1/webhooks/${hook.id}/rotate-secret`)).body.secret as string;
  t.ok(SecretBox.isSealed(await rawSecret(s, hook.id)));
  t.notOk((await rawSecret(s, hook.id)).includes(rotated));

  await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'hi', name: 'Hi', trigger: 'api', status: 'active' }] });
  await s.call('POST', '/v1/achievements/hi/complete', { body: { user: { id: 'u' } } });
  await s.drain();
  await s.app.webhooks.runOnce();
  await until('the delivery', async () => got.length > 0);
  t.equal(got[0]!.headers['x-trophy-signature'], createHmac('sha256', rotated).update(got[0]!.body).digest('base64'), 'signed with the (rotated) secret');
});

t.test('secrets stored in the clear are sealed on start; `npm run secrets:rekey` moves them to a new key', async (t) => {
  const oldKey = randomBytes(32).toString('hex');
  const s = await startServer(t, { SECRETS_KEY: oldKey });
  const hook = await webhook(s);
  // A row as written before sealing existed.
  await s.app.ctx.db.query(`UPDATE webhooks SET secret = 'whsec_plain_from_before' WHERE id = $1`, [hook.id]);
  const again = await startServer(t, { DATABASE_SCHEMA: s.schema, REDIS_KEY_PREFIX: s.prefix, ADMIN_API_KEY: s.adminKey, SECRETS_KEY: oldKey });
  const sealed = await rawSecret(again, hook.id);
  t.ok(SecretBox.isSealed(sealed), 'sealed by the next start');
  t.equal(again.app.ctx.secrets.open(sealed), 'whsec_plain_from_before');

  const newKey = randomBytes(32).toString('hex');
  const env = { ...process.env, DATABASE_SCHEMA: s.schema, SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: oldKey, LOG_LEVEL: 'silent' };
  const out = await run(process.execPath, ['dist/src/ops/rekey-cli.js'], { cwd: ROOT, env });
  t.match(out.stdout, /re-sealed 1 stored credentials/);
  const rekeyed = await rawSecret(s, hook.id);
  t.not(rekeyed, sealed);
  t.equal(new SecretBox([Buffer.from(newKey, 'hex')]).open(rekeyed), 'whsec_plain_from_before', 'the new key alone opens it');
  t.match((await run(process.execPath, ['dist/src/ops/rekey-cli.js'], { cwd: ROOT, env })).stdout, /re-sealed 0/, 'a second run has nothing to do');
  await t.rejects(run(process.execPath, ['dist/src/ops/rekey-cli.js'], { cwd: ROOT, env: { ...env, SECRETS_KEY: randomBytes(32).toString('hex'), SECRETS_KEY_PREVIOUS: '' } }),
    /unknown secrets key/, 'without the key that sealed them, nothing is changed');
  t.equal(new SecretBox([Buffer.from(newKey, 'hex')]).open(await rawSecret(s, hook.id)), 'whsec_plain_from_before');
});

t.test('no audit entry, export, debug log line or error body holds a secret the suite made', async (t) => {
  const secretsKey = randomBytes(32).toString('hex');
  const env = processDeployment(t, { LOG_LEVEL: 'debug', SECRETS_KEY: secretsKey });
  const server = await spawnServer({ ...env, LOG_LEVEL: 'debug' }, { captureLogs: true });
  t.teardown(async () => {
    server.proc.kill('SIGTERM');
    await server.exit;
  });
  const secrets: string[] = [env.ADMIN_API_KEY, secretsKey];
  const seen: { what: string; text: string }[] = [];
  const call = async (method: string, p: string, key: string | null, body?: unknown, shows = false) => {
    const r = await fetch(server.url + p, {
      method, headers: { ...(key ? { 'X-API-KEY': key } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    // Every response but the ones that show a new secret once is searched.
    if (!shows) seen.push({ what: `${method} ${p} → ${r.status}`, text });
    return { status: r.status, body: JSON.parse(text) };
  };
  const admin = env.ADMIN_API_KEY;

  const k1 = (await call('POST', '/admin/v1/admin-api-keys', admin, { name: 'one' }, true)).body;
  const k2 = (await call('POST', '/admin/v1/admin-api-keys', admin, { name: 'two' }, true)).body;
  const k1b = (await call('POST', `/admin/v1/admin-api-keys/${k1.id}/rotate`, k2.key, undefined, true)).body;
  secrets.push(k1.key, k2.key, k1b.key);
  const [hook] = (await call('POST', '/admin/v1/webhooks', k2.key, [{ url: 'http://127.0.0.1:9/hook', eventTypes: ['points.changed'] }], true)).body.created;
  const rotated = (await call('POST', `/admin/v1/webhooks/${hook.id}/rotate-secret`, k2.key, undefined, true)).body.secret;
  secrets.push(hook.secret, rotated);
  await call('POST', '/admin/v1/metrics', k2.key, [{ key: 'm', name: 'M' }]);
  const [app] = (await call('POST', '/admin/v1/application-api-keys', k2.key, [{ userId: 'ada' }], true)).body.created;
  secrets.push(app.key);
  t.equal((await call('POST', '/v1/metrics/m/event', app.key, { user: { id: 'ada' }, value: 1 })).status, 201);
  await call('PATCH', '/admin/v1/webhooks', k2.key, [{ id: hook.id, description: 'CRM' }]);
  await call('PATCH', `/admin/v1/admin-api-keys/${k1.id}`, k2.key, { status: 'inactive' });

  // Refusals, each with an error body.
  t.equal((await call('GET', '/admin/v1/metrics', k1.key)).status, 401, 'the rotated-away key');
  t.equal((await call('GET', '/admin/v1/metrics', k1b.key)).status, 401, 'the revoked key');
  t.equal((await call('GET', '/admin/v1/metrics', `${k2.key}x`)).status, 401);
  t.equal((await call('GET', '/admin/v1/metrics', app.key)).status, 403);
  t.equal((await call('DELETE', `/admin/v1/admin-api-keys/${k2.id}`, k2.key)).status, 409);
  t.equal((await call('POST', '/admin/v1/admin-api-keys', k2.key, { name: k2.key.repeat(10) })).status, 422);
  t.equal((await call('PATCH', '/admin/v1/webhooks', k2.key, [{ id: hook.id, url: `ftp://${rotated}` }])).status, 200, 'an item refused as an issue');
  t.equal((await call('GET', '/v1/users/ada/metrics/m', k2.key.replace('.', '.x'))).status, 401);

  const audit = await call('GET', '/admin/v1/audit-log?limit=500', k2.key);
  t.ok(audit.body.entries.length >= 8, 'the audit log holds the changes');
  const exported = await call('GET', '/admin/v1/users/ada/export', k2.key);
  t.equal(exported.status, 200, 'the user is exported');
  await call('GET', '/admin/v1/admin-api-keys', k2.key);
  await call('GET', '/admin/v1/webhooks', k2.key);
  await until('debug lines for the requests', async () => server.logs().includes('"level":"debug"'));
  seen.push({ what: 'logs', text: server.logs() });

  const needles = secrets.flatMap((s) => [s, ...(s.includes('.') ? [s.split('.')[1]!] : [])]).filter((s) => s.length >= 8);
  for (const { what, text } of seen) {
    const found = needles.filter((n) => text.includes(n));
    t.same(found, [], `${what}: no secret`);
  }
  t.ok(JSON.stringify(exported.body).includes(app.id), "the export lists the user's key (by id), and was searched");
});
