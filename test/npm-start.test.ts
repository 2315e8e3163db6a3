import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, freshPost as post, processDeployment, until } from './helpers/process';

const ROOT = path.resolve(__dirname, '../..');

/** Every process under `pid`, however deep (ps exits 1 when there is none). */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((s) => Number(s.trim())).filter(Boolean);
  } catch {
    children = [];
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portTaken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.connect(port, '127.0.0.1');
    probe.once('connect', () => (probe.destroy(), resolve(true)));
    probe.once('error', () => resolve(false));
  });

// What a process manager does: SIGTERM to the command it started, `npm start`.
// (`--ignore-scripts` skips only the prestart build, which the test run has done.)
for (const extra of [{}, { WORKERS: '2' }] as Record<string, string>[]) {
  t.test(`SIGTERM to npm start reaches Laurel: every process ends in time, nothing accepted is lost ${JSON.stringify(extra)}`, async (t) => {
    const env = processDeployment(t, extra);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const npm = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', SCHEDULER_INTERVAL_MS: '3600000' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    let processes: number[] = [];
    // Those seen running too: an orphan is no longer under npm.
    t.teardown(() => [npm.pid!, ...processes, ...descendants(npm.pid!)].forEach((p) => alive(p) && process.kill(p, 'SIGKILL')));
    await until('the server to answer', async () => (await fetch(`${url}/healthz`)).ok, 30_000);
    processes = descendants(npm.pid!);
    t.ok(processes.length >= 1);

    t.equal(await post(url, '/admin/v1/metrics', env.ADMIN_API_KEY, [{ name: 'M', key: 'm' }]), 201);
    const sent = await Promise.all(Array.from({ length: 60 }, (_, i) => post(url, '/v1/metrics/m/event', env.ADMIN_API_KEY, { user: { id: `u${i % 4}` }, value: 1 }, { 'Idempotency-Key': `k${i}` })));
    t.ok(sent.every((s) => s === 201), 'events accepted');

    const started = Date.now();
    npm.kill('SIGTERM');
    await exited;
    // The drain time: a Laurel process exits within 10 s of SIGTERM.
    await until('every process to end', async () => processes.every((p) => !alive(p)), 10_000);
    t.ok(Date.now() - started < 10_000, 'within the drain time');
    t.notOk(await portTaken(port), 'the port is free again');

    const db = new Client({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel' });
    await db.connect();
    t.teardown(() => db.end());
    const stored = Number((await db.query(`SELECT count(*) AS n FROM "${env.DATABASE_SCHEMA}".events`)).rows[0].n);
    t.equal(stored, 60, 'every accepted event reached Postgres (the final flush ran)');
  });
}
