import { isLogLevel, LogLevel } from './observability/log';
import { defaultBurst, RateLimit } from './auth/rate-limit';

/** Everything the process reads from its environment, with safe defaults. */
export interface Config {
  port: number;
  host: string;
  redisUrl: string;
  /** REDIS_URL is one node of a Redis Cluster (the others are discovered from it). */
  redisCluster: boolean;
  databaseUrl: string;
  /** Postgres schema holding Laurel's tables. */
  databaseSchema: string;
  /** Prefix of every Redis key and channel this deployment uses. */
  keyPrefix: string;
  /** When set, this exact value is accepted as an admin API key. */
  adminApiKey: string | undefined;
  logLevel: LogLevel;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** Whether REDIS_URL / DATABASE_URL were given (then we never start services ourselves). */
  redisUrlExplicit: boolean;
  databaseUrlExplicit: boolean;
  /** Where a Redis that Laurel starts itself keeps its data. */
  dataDir: string;
  /** How often the scheduler looks for due work (time-based points, …). */
  schedulerIntervalMs: number;
  /** Unflushed change records per tenant past which events are refused (503) rather than risk losing them. */
  maxBacklog: number;
  /** Most events of one tenant sent to Redis in one call (group commit); 1 sends each alone. */
  eventGroupMax: number;
  /** How long a dead process's unflushed records wait before another flusher takes them. */
  flushClaimMs: number;
  /** Server processes sharing the port. */
  workers: number;
  /**
   * Where the background jobs (flusher, scheduler, webhooks, batches of
   * events) run: `inline`, in the one HTTP process, or `process`, in a
   * process of their own beside the HTTP workers (always so with WORKERS
   * above 1).
   */
  background: 'inline' | 'process';
  /** Change-stream consumers run side by side by the process doing background work. */
  flushers: number;
  /** Rate limit of API keys without their own (null: unlimited). */
  rateLimit: RateLimit | null;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Webhook delivery: receiver timeout, attempts before dead-lettering, first retry delay, polling, retention of delivered rows. */
  webhookTimeoutMs: number;
  webhookMaxAttempts: number;
  webhookRetryBaseMs: number;
  webhookPollMs: number;
  webhookRetentionDays: number;
  /** Raw event records older than this many days are dropped, a month's partition at a time (null: kept forever). */
  eventRetentionDays: number | null;
  /** Live updates (`GET /v1/live`): see src/live. */
  live: LiveConfig;
  /** Seals stored credentials (32 bytes, hex or base64); unset: a key generated once and kept in Postgres. */
  secretsKey: string | undefined;
  /** The key before a rotation: still opens what it sealed until everything is re-sealed. */
  secretsKeyPrevious: string | undefined;
  /** Audit log entries are dropped, a month at a time, once older than this. */
  auditRetentionDays: number;
  /** Where users reach this server (unsubscribe links in emails), without a trailing slash. */
  publicUrl: string;
  /** Messages Laurel sends itself (docs/messages.md): per-tenant sending rate, attempts, first retry delay. */
  messagesPerSecond: number;
  messageMaxAttempts: number;
  messageRetryBaseMs: number;
  /** Sent, failed and suppressed messages are kept this long in the log. */
  messageRetentionDays: number;
}

export interface LiveConfig {
  /** Signs live tokens; unset: a secret made once and kept in Redis. */
  tokenSecret: string | undefined;
  tokenTtlMs: number;
  /** Views sent per second at most, per leaderboard subscription. */
  boardRate: number;
  /** Open live connections per API key, per process. */
  maxConnectionsPerKey: number;
  /** Subscriptions per connection. */
  maxSubscriptions: number;
  /** Unsent bytes past which a connection's messages are dropped (the gap shows in `seq`). */
  maxBufferBytes: number;
  /** Messages dropped in a row after which a slow connection is closed (4008). */
  maxDropped: number;
  /** Seconds without traffic before a connection is closed; pings are sent before that. */
  idleTimeoutSeconds: number;
}

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/laurel';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intVar(env, 'PORT', 8080, 0, 65535);
  const workers = intVar(env, 'WORKERS', 1, 1, 64);
  if (workers > 1 && port === 0) throw new Error('WORKERS above 1 needs a fixed PORT (the workers share it)');
  const background = env.BACKGROUND || (workers > 1 ? 'process' : 'inline');
  if (background !== 'inline' && background !== 'process') throw new Error(`BACKGROUND must be inline or process (got "${background}")`);
  if (background === 'inline' && workers > 1) throw new Error('BACKGROUND=inline needs WORKERS=1 (with more, the jobs run in a process of their own)');
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!isLogLevel(logLevel)) throw new Error(`LOG_LEVEL must be one of debug, info, warn, error, silent (got "${logLevel}")`);
  // Laurel only ever starts a standalone Redis itself: a cluster is named explicitly.
  if (boolVar(env, 'REDIS_CLUSTER') && !env.REDIS_URL) throw new Error('REDIS_CLUSTER=1 needs REDIS_URL (a node of the cluster)');
  const schema = env.DATABASE_SCHEMA ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error('DATABASE_SCHEMA must be a lower-case SQL identifier');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
    redisCluster: boolVar(env, 'REDIS_CLUSTER'),
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    databaseSchema: schema,
    keyPrefix: env.REDIS_KEY_PREFIX ?? 'laurel:',
    adminApiKey: env.ADMIN_API_KEY || undefined,
    logLevel,
    maxBodyBytes: intVar(env, 'MAX_BODY_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    redisUrlExplicit: !!env.REDIS_URL,
    databaseUrlExplicit: !!env.DATABASE_URL,
    dataDir: env.LAUREL_DATA_DIR || `${process.cwd()}/.data`,
    schedulerIntervalMs: intVar(env, 'SCHEDULER_INTERVAL_MS', 1000, 50, 3_600_000),
    maxBacklog: intVar(env, 'MAX_BACKLOG', 1_000_000, 1, 1_000_000_000),
    eventGroupMax: intVar(env, 'EVENT_GROUP_MAX', 1, 1, 1000),
    flushClaimMs: intVar(env, 'FLUSH_CLAIM_MS', 30_000, 100, 3_600_000),
    workers,
    background,
    // A tenant's batches of events are written one at a time (its flush
    // mark, store/flush-marks.ts): more flushers help only across tenants.
    flushers: intVar(env, 'FLUSHERS', workers, 1, 64),
    rateLimit: rateLimitVars(env),
    metricsToken: env.METRICS_TOKEN || undefined,
    webhookTimeoutMs: intVar(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookMaxAttempts: intVar(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
    webhookRetryBaseMs: intVar(env, 'WEBHOOK_RETRY_BASE_MS', 60_000, 1, 86_400_000),
    webhookPollMs: intVar(env, 'WEBHOOK_POLL_MS', 1000, 10, 3_600_000),
    webhookRetentionDays: intVar(env, 'WEBHOOK_RETENTION_DAYS', 7, 1, 3650),
    eventRetentionDays: env.EVENT_RETENTION_DAYS ? intVar(env, 'EVENT_RETENTION_DAYS', 0, 1, 36_500) : null,
    live: {
      tokenSecret: env.LIVE_TOKEN_SECRET || undefined,
      tokenTtlMs: intVar(env, 'LIVE_TOKEN_TTL_SECONDS', 300, 10, 86_400) * 1000,
      boardRate: numberVar(env, 'LIVE_BOARD_RATE', 4, 0.01, 1000),
      maxConnectionsPerKey: intVar(env, 'LIVE_MAX_CONNECTIONS_PER_KEY', 10_000, 1, 1_000_000),
      maxSubscriptions: intVar(env, 'LIVE_MAX_SUBSCRIPTIONS', 100, 1, 10_000),
      maxBufferBytes: intVar(env, 'LIVE_MAX_BUFFER_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxDropped: intVar(env, 'LIVE_MAX_DROPPED', 100, 1, 1_000_000),
      // Silent connections are pinged, then closed, within this (src/live/server.ts); 8 s at least.
      idleTimeoutSeconds: intVar(env, 'LIVE_IDLE_TIMEOUT_SECONDS', 60, 8, 960),
    },
    secretsKey: env.SECRETS_KEY || undefined,
    secretsKeyPrevious: env.SECRETS_KEY_PREVIOUS || undefined,
    auditRetentionDays: intVar(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500),
    publicUrl: publicUrlVar(env),
    messagesPerSecond: intVar(env, 'MESSAGES_PER_SECOND', 10, 1, 10_000),
    messageMaxAttempts: intVar(env, 'MESSAGE_MAX_ATTEMPTS', 8, 1, 50),
    messageRetryBaseMs: intVar(env, 'MESSAGE_RETRY_BASE_MS', 60_000, 1, 86_400_000),
    messageRetentionDays: intVar(env, 'MESSAGE_RETENTION_DAYS', 30, 1, 3650),
  };
}

/** PUBLIC_URL, an absolute http(s) URL; unset, this host and port (fine on a laptop, not in emails sent to users). */
function publicUrlVar(env: NodeJS.ProcessEnv): string {
  const raw = env.PUBLIC_URL || `http://${env.HOST || 'localhost'}:${env.PORT || 8080}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('PUBLIC_URL must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('PUBLIC_URL must be an absolute http or https URL');
  return u.toString().replace(/\/+$/, '');
}

/** RATE_LIMIT_PER_SECOND (0: off) and RATE_LIMIT_BURST (default: one second's worth). */
function rateLimitVars(env: NodeJS.ProcessEnv): Config['rateLimit'] {
  const raw = env.RATE_LIMIT_PER_SECOND;
  const perSecond = raw === undefined || raw === '' ? 0 : Number(raw);
  if (!Number.isFinite(perSecond) || perSecond < 0 || perSecond > 1_000_000) {
    throw new Error(`RATE_LIMIT_PER_SECOND must be a number from 0 to 1000000 (got "${raw}")`);
  }
  if (perSecond === 0) return null;
  return { perSecond, burst: intVar(env, 'RATE_LIMIT_BURST', defaultBurst(perSecond), 1, 1_000_000) };
}

/** A number from min to max (a whole one if `integer`), or the default when unset or empty. */
function numberVar(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number, integer = false): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!(integer ? Number.isInteger(n) : Number.isFinite(n)) || n < min || n > max) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (got "${raw}")`);
  }
  return n;
}

function boolVar(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name] ?? '';
  if (raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new Error(`${name} must be 1 or 0 (got "${raw}")`);
}

function intVar(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  return numberVar(env, name, dflt, min, max, true);
}
