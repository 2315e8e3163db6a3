import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, TestServer } from './helpers/harness';

// `laurel config pull|plan|push`, run as the package's bin script in a child process.

const BIN = path.join(__dirname, '../src/cli/laurel.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function laurel(s: TestServer, args: string[], opts: { tenant?: string; stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', LAUREL_URL: s.url, LAUREL_API_KEY: s.adminKey, ...opts.env };
  if (opts.tenant) env.LAUREL_TENANT = opts.tenant;
  const child = spawn(process.execPath, [BIN, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(opts.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

t.test('pull, plan and push between two tenants', async (t) => {
  const s = await startServer(t);
  const dir = mkdtempSync(path.join(tmpdir(), 'laurel-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'staging', name: 'Staging' }, { customerId: 'prod', name: 'Prod' }] });
  await s.metrics(['visits', 'shares'], 'staging');
  await s.call('POST', '/admin/v1/webhooks', { tenant: 'staging', body: [{ url: 'https://hooks.test/x', eventTypes: ['achievement.completed'] }] });

  const file = path.join(dir, 'staging.json');
  const pulled = await laurel(s, ['config', 'pull', file], { tenant: 'staging' });
  t.equal(pulled.code, 0, pulled.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  t.same(doc.resources.metrics.map((m: any) => m.key), ['shares', 'visits']);
  const toStdout = await laurel(s, ['config', 'pull'], { tenant: 'staging' });
  t.equal(toStdout.stdout, readFileSync(file, 'utf8'), 'without a file the document goes to standard output');

  const plan = await laurel(s, ['config', 'plan', file], { tenant: 'prod' });
  t.equal(plan.code, 2, 'changes to make: exit 2');
  t.match(plan.stdout, /\+ metrics shares\n\+ metrics visits\n/);
  t.match(plan.stdout, /~ webhooks|\+ webhooks https:\/\/hooks\.test\/x/);
  t.same((await s.call('GET', '/admin/v1/metrics', { tenant: 'prod' })).body, [], 'plan applies nothing');

  const push = await laurel(s, ['config', 'push', file], { tenant: 'prod' });
  t.equal(push.code, 0, push.stderr);
  t.match(push.stdout, /3 changes: 3 to create, 0 to update, 0 to delete\. Config version \d+\./);
  t.same((await s.call('GET', '/admin/v1/metrics', { tenant: 'prod' })).body.map((m: any) => m.key), ['shares', 'visits']);

  const again = await laurel(s, ['config', 'plan', '-'], { tenant: 'prod', stdin: readFileSync(file, 'utf8') });
  t.equal(again.code, 0, 'nothing to change: exit 0 (the document read from standard input)');
  t.equal(again.stdout, 'No changes.\n');

  // An update shows each changed field; --prune shows what would go.
  doc.resources.metrics = [{ ...doc.resources.metrics[1], name: 'Site visits' }];
  writeFileSync(file, JSON.stringify(doc));
  const changed = await laurel(s, ['config', 'plan', file, '--prune'], { tenant: 'prod' });
  t.equal(changed.code, 2);
  t.equal(changed.stdout, '~ metrics visits\n    name: "Metric visits" -> "Site visits"\n- metrics shares\n2 changes: 0 to create, 1 to update, 1 to delete.\n');
});

t.test('failures exit 1', async (t) => {
  const s = await startServer(t);
  const dir = mkdtempSync(path.join(tmpdir(), 'laurel-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ resources: { leaderboards: [{ key: 'b', name: 'B', rankBy: 'metric', metricKey: 'nope' }] } }));

  const refused = await laurel(s, ['config', 'push', bad]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /422: .*\n {2}resources\.leaderboards\[0\]\.metricKey: No metrics with key "nope"/);
  t.equal((await laurel(s, ['config', 'plan', bad])).code, 1, 'a refused plan too');
  t.equal((await laurel(s, ['config', 'plan', path.join(dir, 'missing.json')])).code, 1, 'an unreadable file');
  t.equal((await laurel(s, ['config', 'plan', '-'], { stdin: 'not json' })).code, 1, 'input that is not JSON');
  t.equal((await laurel(s, ['config', 'pull'], { env: { LAUREL_API_KEY: 'admin_x.wrong' } })).code, 1, 'a wrong key');
  t.equal((await laurel(s, ['config', 'pull'], { tenant: 'nobody' })).code, 1, 'an unknown tenant');
  t.equal((await laurel(s, ['config', 'pull'], { env: { LAUREL_URL: '' } })).code, 1, 'LAUREL_URL unset');
  const usage = await laurel(s, ['config', 'frobnicate']);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /Usage:/);
  const stale = await laurel(s, ['config', 'push', '-', '--if-match', '0'], { stdin: JSON.stringify({ resources: { metrics: [{ key: 'm', name: 'M' }] } }) });
  t.equal(stale.code, 1);
  t.match(stale.stderr, /^412: /);
});
