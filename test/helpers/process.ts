import { spawn, ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { purgePrefix } from './harness';

const ROOT = path.resolve(__dirname, '../../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Poll until `fn` gives something truthy (errors count as not yet). */
export async function until<T>(what: string, fn: () => Promise<T | null | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * A Laurel server as a real child process (`npm start` minus the build).
 * With `captureLogs`, its stderr is kept (`logs()`) instead of shown.
 */
export async function spawnServer(
  env: Record<string, string>,
  opts: { captureLogs?: boolean } = {},
): Promise<{ proc: ChildProcess; url: string; exit: Promise<number | null>; logs: () => string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', SCHEDULER_INTERVAL_MS: '3600000', FLUSH_CLAIM_MS: '300', ...env },
    stdio: ['ignore', 'ignore', opts.captureLogs ? 'pipe' : 'inherit'],
  });
  let logs = '';
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (logs += chunk));
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await until('the server to answer', async () => (await fetch(`${url}/healthz`)).ok);
  return { proc, url, exit, logs: () => logs };
}

/**
 * Settings for a deployment run as real processes (own schema, key prefix and
 * admin key), removed when the test ends.
 */
export function processDeployment(t: { teardown(fn: () => unknown): void }, extra: Record<string, string> = {}) {
  const id = randomBytes(4).toString('hex');
  const env = { REDIS_KEY_PREFIX: `test-${id}:`, DATABASE_SCHEMA: `test_${id}`, ADMIN_API_KEY: `admin_test.${id}`, ...extra };
  t.teardown(async () => {
    const c = new Client({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel' });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${env.DATABASE_SCHEMA}" CASCADE`);
    await c.end();
    await purgePrefix(env.REDIS_KEY_PREFIX);
  });
  return env;
}

/** GET on a fresh connection (so the kernel may hand it to any worker of a WORKERS=N server). */
export function freshGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent: false, headers: { Connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A JSON POST on a fresh connection (so the kernel may hand it to any worker): its status. */
export function freshPost(url: string, path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(`${url}${path}`, {
      method: 'POST',
      agent: false,
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data), Connection: 'close', ...headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(data);
  });
}
