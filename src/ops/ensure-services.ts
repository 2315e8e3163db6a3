import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config';
import type { Logger } from '../observability/log';

/**
 * Make sure Redis and Postgres answer before the server (or the tests) start.
 * Only the default local addresses are ever started here, from Debian's
 * packages (installed first when absent and we are root). An explicit
 * REDIS_URL / DATABASE_URL that does not answer is an error to report.
 */
export async function ensureServices(config: Config, log: Logger): Promise<void> {
  await ensureRedis(config, log);
  await ensurePostgres(config, log);
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function reachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export async function waitFor(host: string, port: number, what: string, seconds = 20): Promise<void> {
  for (let i = 0; i < seconds * 5; i++) {
    if (await reachable(host, port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} was started but does not answer on ${host}:${port}`);
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

export function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr?.toString().trim().split('\n').pop() ?? r.error?.message}`);
}

function aptInstall(pkg: string, log: Logger): void {
  log.info(`installing ${pkg} from Debian's packages`);
  run('apt-get', ['update', '-q']);
  run('apt-get', ['install', '-y', '-q', pkg]);
}

/**
 * Where a service's URL points; null when it answers there. One that does not
 * answer at an explicit or remote URL is not ours to start: that throws.
 */
async function toStart(
  name: string, url: string, defaultPort: number, explicit: boolean, orElse: string,
): Promise<{ host: string; port: number; where: string } | null> {
  const u = new URL(url);
  const host = u.hostname || '127.0.0.1';
  const port = Number(u.port || defaultPort);
  if (await reachable(host, port)) return null;
  const where = `${host}:${port}`;
  if (explicit || !LOCAL.has(host)) {
    throw new Error(`${name} is not reachable at ${where}: start it there or ${orElse}.`);
  }
  return { host, port, where };
}

async function ensureRedis(config: Config, log: Logger): Promise<void> {
  const at = await toStart('Redis', config.redisUrl, 6379, config.redisUrlExplicit, 'set REDIS_URL to a reachable Redis');
  if (!at) return;
  const { host, port, where } = at;
  if (!has('redis-server')) {
    if (!isRoot()) throw new Error(`Redis is not reachable at ${where} and redis-server is not installed: install Redis 7 or set REDIS_URL.`);
    aptInstall('redis-server', log);
  }
  const dir = path.join(config.dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  log.info('starting redis-server', { port, dir });
  run('redis-server', [
    '--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--dir', dir,
    '--appendonly', 'yes', '--appendfsync', 'everysec', '--logfile', path.join(dir, 'redis.log'),
  ]);
  await waitFor(host, port, 'redis-server');
}

async function ensurePostgres(config: Config, log: Logger): Promise<void> {
  const at = await toStart('Postgres', config.databaseUrl, 5432, config.databaseUrlExplicit, 'set DATABASE_URL to a reachable database');
  if (!at) return;
  const { host, port, where } = at;
  let installedNow = false;
  if (!existsSync('/usr/bin/pg_ctlcluster')) {
    if (!isRoot()) throw new Error(`Postgres is not reachable at ${where} and is not installed: install PostgreSQL 15 or set DATABASE_URL.`);
    aptInstall('postgresql', log);
    installedNow = true;
  }
  if (!isRoot()) throw new Error(`Postgres is not running at ${where}: start it (pg_ctlcluster) or set DATABASE_URL.`);
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  let version = versions.sort().pop();
  if (!version) {
    version = readdirSync('/usr/lib/postgresql').sort().pop()!;
    run('pg_createcluster', [version, 'main', '--port', String(port)]);
    installedNow = true;
  }
  if (installedNow) trustLocalPostgresUser(version);
  log.info('starting postgresql', { version });
  run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  await waitFor(host, port, 'postgresql');
}

/**
 * A fresh Debian cluster asks for a password on TCP; the default
 * DATABASE_URL has none. For a cluster this script created, let the local
 * `postgres` user in from loopback (as the CI and dev machines are set up).
 */
function trustLocalPostgresUser(version: string): void {
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`;
  if (!existsSync(hba)) return;
  const current = readFileSync(hba, 'utf8');
  if (current.includes('# laurel: local trust')) return;
  writeFileSync(hba, `# laurel: local trust\nhost all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust\n${current}`);
}
