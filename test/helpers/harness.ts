import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { DEFAULT_REDIS_URL, loadConfig } from '../../src/config';
import { createPool } from '../../src/store/db';
import { createLogger } from '../../src/observability/log';
import { ManualClock } from '../../src/clock';
import { startApp, App, AppRoles } from '../../src/app';
import { purgeKeys } from '../../src/redis/purge';
import { openRedis, RedisClient, RedisTarget, scanKeys } from '../../src/redis/client';
import { FLUSH_GROUP } from '../../src/redis/keys';
import { streamVersion, versionBefore } from '../../src/store/user-state';
import { Relay } from './proxy';
import { contractWatch } from './contract';

/** Anything with a teardown hook (a tap Test). */
interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string | Buffer;
  /** API key; defaults to the admin key, null sends none. */
  key?: string | null;
  /** Tenant-ID header. */
  tenant?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  app: App;
  url: string;
  clock: ManualClock;
  adminKey: string;
  prefix: string;
  schema: string;
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<Res<T>>;
  /** Create metrics (default tenant unless given); returns them by key. */
  metrics(keys: string[], tenant?: string): Promise<Record<string, { id: string; key: string }>>;
  /** Create attributes (name = key); the created ones by key. */
  attributes(items: { key: string; type: 'user' | 'event' }[], tenant?: string): Promise<Record<string, { id: string; key: string }>>;
  event(metric: string, body: unknown, opts?: CallOptions): Promise<Res>;
  /** Flush every server of this deployment (any of their flushers may hold an entry). */
  drain(): Promise<void>;
  /**
   * What any change of state moves: each tenant's change stream (every script
   * that writes appends to it), config versions, and the rows of what has none.
   */
  fingerprint(): Promise<string>;
}

export const START = '2026-03-10T12:00:00Z';

/** Servers sharing another's schema; the owner closes them before cleaning up. */
const followers = new Map<string, App[]>();
/** Every server of a deployment (by schema), owner first. */
const deployments = new Map<string, App[]>();

/**
 * A real server on a free port, with its own Postgres schema and Redis key
 * prefix so test files run in parallel; everything is removed at teardown.
 */
export async function startServer(t: Teardown, env: Record<string, string> = {}, roles?: AppRoles): Promise<TestServer> {
  const id = randomBytes(5).toString('hex');
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_KEY_PREFIX: `test-${id}:`,
    DATABASE_SCHEMA: `test_${id}`,
    ADMIN_API_KEY: `admin_test.${randomBytes(16).toString('hex')}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests drive the scheduler themselves (app.scheduler.runOnce) unless they ask for the loop.
    SCHEDULER_INTERVAL_MS: '3600000',
    ...env,
  });
  const clock = new ManualClock(new Date(START).getTime());
  const { keyPrefix: prefix, databaseSchema: schema } = config;
  const adminKey = config.adminApiKey!;
  // A server given another's schema (a second process of one deployment) leaves cleanup to the first.
  const owner = !env.DATABASE_SCHEMA;
  const app = await startApp(config, clock, createLogger(config.logLevel), roles);
  const url = `http://127.0.0.1:${app.port}`;
  if (!owner) followers.set(schema, [...(followers.get(schema) ?? []), app]);
  deployments.set(schema, [...(deployments.get(schema) ?? []), app]);
  t.teardown(async () => {
    await app.close();
    if (owner) for (const f of followers.get(schema) ?? []) await f.close();
    // Clean up what this server created, over the direct addresses (a test may have used a relay).
    if (owner) await dropSchema(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel', schema);
    if (!env.REDIS_KEY_PREFIX) await purgePrefix(prefix);
    watch?.settle();
  });
  // Every response through `call` is checked against Trophy's specs (helpers/contract.ts).
  const watch = contractWatch();

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<Res> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== null) headers['X-API-KEY'] = opts.key ?? adminKey;
    if (opts.tenant) headers['Tenant-ID'] = opts.tenant;
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    watch?.check({ method, path, status: res.status, body: parsed });
    return { status: res.status, body: parsed, headers: res.headers };
  };

  const drain = async () => {
    for (const a of deployments.get(schema) ?? [app]) if (!a.closed) await a.flusher.drain();
  };

  return {
    app, url, clock, adminKey, prefix, schema, call,
    async metrics(keys, tenant) {
      const r = await call('POST', '/admin/v1/metrics', { body: keys.map((key) => ({ key, name: `Metric ${key}` })), tenant });
      if (r.status !== 201 || r.body.issues.length) throw new Error(`metric setup failed: ${JSON.stringify(r.body)}`);
      return Object.fromEntries(r.body.created.map((m: { id: string; key: string }) => [m.key, m]));
    },
    async attributes(items, tenant) {
      const r = await call('POST', '/admin/v1/attributes', { body: items.map((a) => ({ ...a, name: a.key })), tenant });
      if (r.status !== 201 || r.body.issues.length) throw new Error(`attribute setup failed: ${JSON.stringify(r.body)}`);
      return Object.fromEntries(r.body.created.map((a: { id: string; key: string }) => [a.key, a]));
    },
    event(metric, body, opts = {}) {
      return call('POST', `/v1/metrics/${metric}/event`, { ...opts, body });
    },
    drain,
    async fingerprint() {
      // Flushed first: the flusher moves Postgres rows of earlier requests on its own time.
      await drain();
      const { db, redis, keys } = app.ctx;
      const tenants = await db.query<{ slot: number; config_version: string }>('SELECT slot, config_version FROM tenants ORDER BY slot');
      const streams = await Promise.all(tenants.rows.map(async (r) => {
        const info = (await redis.xinfo('STREAM', keys.tenant(r.slot).stream).catch(() => [])) as unknown[];
        const i = info.indexOf('last-generated-id');
        return `${r.slot}:${r.config_version}:${i < 0 ? '-' : String(info[i + 1])}`;
      }));
      const counts = await db.query(
        `SELECT (SELECT count(*) FROM api_keys) AS keys, (SELECT count(*) FROM webhooks) AS webhooks,
                (SELECT count(*) FROM streak_pauses) AS pauses, (SELECT count(*) FROM users) AS users`,
      );
      return JSON.stringify([streams, counts.rows[0]]);
    },
  };
}

/** A pool on a schema of its own (`<prefix>_<random>`), dropped when the test ends. */
export function schemaPool(t: Teardown, prefix: string, url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel'): { schema: string; db: Pool } {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  const db = createPool(url, schema);
  t.teardown(async () => {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  });
  return { schema, db };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}

/**
 * A server whose Redis is reached through a relay the test can cut. A relay
 * stands in for one Redis only (a cluster client connects past it, to the
 * addresses the nodes announce), so this uses a standalone Redis even in the
 * cluster suite, and cleans up there.
 */
export async function startBehindRedisRelay(t: Teardown, env: Record<string, string> = {}): Promise<{ s: TestServer; relay: Relay }> {
  const shared = loadConfig(process.env);
  const redisUrl = shared.redisCluster ? DEFAULT_REDIS_URL : shared.redisUrl;
  const relay = new Relay(Number(new URL(redisUrl).port || 6379));
  const port = await relay.start();
  t.teardown(() => relay.cut());
  const s = await startServer(t, { ...env, REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_CLUSTER: '' });
  if (shared.redisCluster) t.teardown(() => purgePrefix(s.prefix, { redisUrl, redisCluster: false }));
  return { s, relay };
}

/**
 * A connection to the Redis the suite runs against (standalone, or the
 * cluster when REDIS_CLUSTER is set), closed at teardown.
 */
export async function sharedRedis(t: Teardown): Promise<RedisClient> {
  const r = await connectShared();
  t.teardown(() => r.disconnect());
  return r;
}

/**
 * Put stream entries back, each under its own id, as new to the flushers'
 * group: what a redelivery, a claim or a Redis restored from an older copy
 * brings again. (Entries deleted once cannot be added back to the same
 * stream, which never goes below its last id: it is made anew.)
 */
export async function redeliver(r: RedisClient, stream: string, entries: [id: string, fields: string[]][]): Promise<void> {
  await r.del(stream);
  const inOrder = [...entries].sort((a, b) => (versionBefore(streamVersion(a[0]), streamVersion(b[0])) ? -1 : 1));
  for (const [id, fields] of inOrder) await r.xadd(stream, id, ...fields);
  await r.xgroup('CREATE', stream, FLUSH_GROUP, '0');
}

async function connectShared(target: RedisTarget = loadConfig(process.env)): Promise<RedisClient> {
  const r = openRedis(target, { lazyConnect: true });
  await r.connect();
  return r;
}

/**
 * Remove every key under a prefix from the shared Redis, or another, over its
 * direct address (a test may have used a relay).
 */
export async function purgePrefix(prefix: string, target?: RedisTarget): Promise<void> {
  const r = await connectShared(target);
  try {
    await purgeKeys(r, `${prefix}*`);
  } finally {
    r.disconnect();
  }
}

/** Redis keys left under a prefix (to assert cleanup and memory layout). */
export async function keysUnder(prefix: string): Promise<string[]> {
  const r = await connectShared();
  try {
    const out: string[] = [];
    await scanKeys(r, `${prefix}*`, async (keys) => {
      out.push(...keys);
    });
    return out;
  } finally {
    r.disconnect();
  }
}
