import type { Clock } from './clock';
import type { Config } from './config';
import type { Logger } from './observability/log';
import type { Ctx } from './context';
import { createPool, ensureDatabase } from './store/db';
import { migrate } from './store/migrations';
import { makePartitions } from './store/event-partitions';
import { createRedis, createSubscriber } from './redis/client';
import { Keys } from './redis/keys';
import { Engine } from './engine';
import { Authenticator } from './auth/auth';
import { RateLimiter } from './auth/rate-limit';
import { messagesTotal, readFlushes, reportDeadLetters, reportFlusherLag, reportLive, webhookDeliveries } from './observability/metrics';
import { prometheusRoutes } from './api/prometheus';
import { Tenants } from './store/tenants';
import { TenantConfigs } from './store/tenant-config';
import { TtlCache } from './domain/ttl-cache';
import { Flusher } from './pipeline/flusher';
import { createHttpServer, Route } from './http/server';
import { healthRoutes } from './api/health';
import { eventRoutes } from './api/app/events';
import { userRoutes } from './api/app/users';
import { preferenceRoutes } from './api/app/preferences';
import { wrappedRoutes } from './api/app/wrapped';
import { pointsReadRoutes } from './api/app/points';
import { achievementRoutes as achievementReadRoutes } from './api/app/achievements';
import { tenantRoutes } from './api/admin/tenants';
import { metricRoutes } from './api/admin/metrics';
import { attributeRoutes } from './api/admin/attributes';
import { apiKeyRoutes } from './api/admin/api-keys';
import { pointsRoutes } from './api/admin/points';
import { achievementRoutes } from './api/admin/achievements';
import { streakAdminRoutes } from './api/admin/streaks';
import { retentionAdminRoutes } from './api/admin/retention';
import { leaderboardAdminRoutes } from './api/admin/leaderboards';
import { leagueAdminRoutes } from './api/admin/leagues';
import { streakRoutes } from './api/app/streaks';
import { leaderboardRoutes } from './api/app/leaderboards';
import { leagueRoutes } from './api/app/leagues';
import { ensureAdminKey, warnWithoutAutovacuum } from './store/bootstrap';
import { loadSecretBox } from './store/secrets';
import { openSealed, resealSecrets } from './store/sealed';
import { Scheduler } from './scheduler/scheduler';
import { restoreIfEmpty } from './store/restore';
import { WebhookDispatcher } from './webhooks/dispatcher';
import { WebhookDeriver } from './webhooks/derive';
import { webhookRoutes } from './api/admin/webhooks';
import { configRoutes } from './api/admin/config';
import { adminUserRoutes } from './api/admin/users';
import { openApiRoute } from './api/openapi/route';
import { toRoute, type DescribedDef, type RouteDef } from './api/define';
import { DeadLetters } from './pipeline/dead-letters';
import { deadLetterRoutes } from './api/admin/dead-letters';
import { analyticsRoutes } from './api/admin/analytics';
import { userEventsRoutes } from './api/admin/user-events';
import { consoleRoutes } from './api/console';
import { batchEventRoutes } from './api/admin/batch-events';
import { BatchQueue } from './batches/queue';
import { liveDescription, liveRoutes } from './api/app/live';
import { LiveHub, LiveStats } from './live/hub';
import { LIVE_PATH, liveUpgrade } from './live/server';
import { LiveTokens, tokenSecret } from './live/tokens';
import { AuditLog } from './store/audit';
import { audited } from './api/audited';
import { adminKeyRoutes } from './api/admin/admin-keys';
import { auditLogRoutes } from './api/admin/audit-log';
import { messageRoutes } from './api/admin/messages';
import { unsubscribeRoutes } from './api/unsubscribe';
import { MessageSender } from './messages/sender';
import { UnsubscribeLinks } from './messages/unsubscribe';

/**
 * What one process does. `http`: serve the API. `background`: run the jobs no
 * request waits for (the flusher to Postgres, the leased scheduler, the
 * webhook dispatcher). One process does both unless told otherwise; with
 * WORKERS=N the HTTP workers and the background process are split (see main.ts).
 */
export interface AppRoles {
  http: boolean;
  background: boolean;
  /**
   * With `background`: how many flushers (stream consumers) run side by side,
   * default 1. A tenant's batches of events are written one at a time, so
   * several overlap only across tenants (and in reading and decoding).
   */
  flushers?: number;
  /** With `http`: share the port with the other workers of one supervisor (else it is taken exclusively). */
  sharedPort?: boolean;
}

export const ALL_ROLES: Readonly<AppRoles> = { http: true, background: true };

export interface App {
  ctx: Ctx;
  /** The port listened on (0 without the `http` role). */
  port: number;
  roles: Readonly<AppRoles>;
  /** Every route served (method and pattern). */
  routes: Pick<Route, 'method' | 'pattern'>[];
  /** Always present (it reads the lag for /readyz and /metrics); it runs only with the `background` role. */
  flusher: Flusher;
  scheduler: Scheduler;
  webhooks: WebhookDispatcher;
  /** Sends the messages outbox (docs/messages.md); runs only with the `background` role. */
  messages: MessageSender;
  /** Batches of events (`POST /admin/v1/metrics/events`); applied only with the `background` role. */
  batches: BatchQueue;
  /** Live connections of this process (null without the `http` role). */
  live: { stats(): LiveStats } | null;
  readonly closed: boolean;
  close(): Promise<void>;
}

/** Connect, migrate, wire the routes and listen (`http`), start the background jobs (`background`). */
export async function startApp(config: Config, clock: Clock, log: Logger, roles: AppRoles = ALL_ROLES): Promise<App> {
  const sharedPort = roles.sharedPort ?? false;
  roles = { http: roles.http, background: roles.background, flushers: Math.max(1, roles.flushers ?? 1) };
  await ensureDatabase(config.databaseUrl);
  const db = createPool(config.databaseUrl, config.databaseSchema);
  db.on('error', (err) => log.warn('postgres idle client error', { err: err.message }));
  const applied = await migrate(db, config.databaseSchema);
  if (applied) log.info('database migrated', { applied });
  await makePartitions(db, clock.now(), config.eventRetentionDays);
  if (roles.background) await warnWithoutAutovacuum(db, log);

  const redis = createRedis(config, log, 'laurel');
  await redis.connect();
  const sub = createSubscriber(config, log);
  await sub.connect();

  const keys = new Keys(config.keyPrefix);
  const engine = new Engine(redis, config.eventGroupMax);
  await engine.load();
  const tenants = new Tenants(db, clock);
  const auth = new Authenticator(db, config.adminApiKey, clock, new RateLimiter(engine, keys, clock, config.rateLimit));
  const configs = new TenantConfigs(db, redis, engine, keys, log);
  const secrets = await loadSecretBox(db, config.secretsKey, config.secretsKeyPrevious, log);
  // Credentials stored before sealing existed are sealed now.
  const sealed = await resealSecrets(db, secrets);
  if (sealed) log.info('sealed stored credentials that were in the clear', { count: sealed });
  const ctx: Ctx = {
    config, clock, log, db, redis, keys, engine, auth, tenants, configs,
    zones: new TtlCache(clock, 200_000),
    secrets,
    audit: new AuditLog(db, clock, config.auditRetentionDays),
    broadcast: async (msg) => {
      await redis.publish(keys.channel, msg);
    },
    // The flusher is built below (it needs ctx); these run only once requests do.
    durable: {
      through: (tenant, userId, id) => {
        readFlushes.inc({ scope: 'user' });
        return flusher.flushThrough(tenant, id, userId);
      },
      all: (tenant) => {
        readFlushes.inc({ scope: 'tenant' });
        return flusher.flushAll(tenant);
      },
    },
  };

  // Created with the routes below (HTTP role); told of configuration changes.
  let liveHub: LiveHub | null = null;
  await sub.subscribe(keys.channel);
  sub.on('message', (_channel: string, msg: string) => {
    if (msg.startsWith('key:')) auth.forget(msg.slice(4));
    else if (msg === 'tenants') tenants.forget();
    else if (msg.startsWith('config:')) {
      configs.forget(Number(msg.slice(7)));
      // A board watched live may have been deactivated, deleted or changed: its views are read again.
      liveHub?.configChanged(Number(msg.slice(7)));
    }
  });

  await ensureAdminKey(db, config, clock, log);
  // A new or emptied Redis is rebuilt from Postgres before any request is served.
  await restoreIfEmpty({ db, redis, keys, tenants, configs, log });

  const webhooks = new WebhookDispatcher(db, clock, log, {
    timeoutMs: config.webhookTimeoutMs,
    maxAttempts: config.webhookMaxAttempts,
    retryBaseMs: config.webhookRetryBaseMs,
    pollMs: config.webhookPollMs,
    retentionMs: config.webhookRetentionDays * 86_400_000,
    openSecret: (stored) => openSealed(secrets, stored),
  });
  const deadLetters = new DeadLetters(db, clock, log);
  const links = new UnsubscribeLinks(db, config.publicUrl);
  const messages = new MessageSender(ctx, links, {
    perSecond: config.messagesPerSecond,
    maxAttempts: config.messageMaxAttempts,
    retryBaseMs: config.messageRetryBaseMs,
    pollMs: config.webhookPollMs,
    retentionMs: config.messageRetentionDays * 86_400_000,
  });
  // The flushers' connections are pipelined (see writeBatch): a pool of their own.
  const flushDb = createPool(config.databaseUrl, config.databaseSchema, true);
  flushDb.on('error', (err) => log.warn('postgres idle client error', { err: err.message }));
  const newFlusher = () =>
    new Flusher(flushDb, redis, keys, tenants, log, 50, config.flushClaimMs, new WebhookDeriver(ctx, () => webhooks.kick()), deadLetters);
  const flusher = newFlusher();
  // More consumers of the same streams, each with its own name (only with the background role).
  const moreFlushers = roles.background ? Array.from({ length: roles.flushers! - 1 }, newFlusher) : [];
  // Every process reports the lag (read from Redis, so the same wherever it is read; scrapes take the largest).
  const stopLagReport = reportFlusherLag(() => flusher.lag());
  const stopDeadLetterReport = reportDeadLetters(() => deadLetters.count());
  // Created in every process, started only with the background role. An HTTP-only
  // process never sends webhooks: the dispatcher is kicked by the flusher's
  // deriver, which runs in the background process alongside its own dispatcher
  // (and kick() does nothing on a dispatcher that was never started).
  const scheduler = new Scheduler(ctx, config.schedulerIntervalMs);
  // Accepted batches of events: queued by any HTTP process, applied by the background one.
  const batches = new BatchQueue(ctx, 100, config.flushClaimMs);
  // Live updates: tokens any process can check, and this process's WebSocket connections.
  const tokens = roles.http ? new LiveTokens(await tokenSecret(config.live.tokenSecret, redis, keys.liveTokenSecret), config.live.tokenTtlMs) : null;
  const hub = roles.http ? new LiveHub(ctx, config.live) : null;
  liveHub = hub;
  if (hub) reportLive(() => hub.stats());
  // Routes declared once (api/define.ts): served, and described in /openapi.json.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each definition has its own parameter, query, body and response types
  const declared: RouteDef<string, any, any, any>[] = roles.http
    ? [
        ...healthRoutes(ctx, flusher, deadLetters),
        ...prometheusRoutes(config),
        ...eventRoutes(ctx),
        ...userRoutes(ctx),
        ...preferenceRoutes(ctx),
        ...wrappedRoutes(ctx),
        ...pointsReadRoutes(ctx),
        ...achievementReadRoutes(ctx),
        ...streakRoutes(ctx),
        ...leaderboardRoutes(ctx),
        ...liveRoutes(ctx, tokens!),
        ...batchEventRoutes(ctx, batches),
        ...deadLetterRoutes(ctx, flusher, deadLetters),
        ...streakAdminRoutes(ctx),
        ...retentionAdminRoutes(ctx),
        ...userEventsRoutes(ctx),
        ...analyticsRoutes(ctx),
        ...apiKeyRoutes(ctx),
        ...adminUserRoutes(ctx),
        ...adminKeyRoutes(ctx),
        ...auditLogRoutes(ctx),
        ...configRoutes(ctx),
        ...leagueRoutes(ctx),
        ...messageRoutes(ctx, links),
        ...unsubscribeRoutes(ctx, links),
        ...tenantRoutes(ctx),
        ...metricRoutes(ctx),
        ...attributeRoutes(ctx),
        ...pointsRoutes(ctx),
        ...achievementRoutes(ctx),
        ...leaderboardAdminRoutes(ctx),
        ...leagueAdminRoutes(ctx),
        ...webhookRoutes(ctx),
        openApiRoute((): DescribedDef[] => [...declared, liveDescription]),
      ]
    : [];
  // Every Admin API write is recorded in the audit log (api/audited.ts).
  const routes: Route[] = roles.http
    ? audited(ctx, [
        ...declared.map((d) => toRoute(ctx, d)),
        ...consoleRoutes(),
      ])
    : [];
  const http = roles.http
    ? createHttpServer(routes, {
        maxBodyBytes: config.maxBodyBytes,
        log,
        upgrades: { [LIVE_PATH]: liveUpgrade(ctx, hub!, tokens!) },
      })
    : null;
  const port = http ? await http.listen(config.host, config.port, sharedPort) : 0;
  if (roles.background) {
    flusher.start();
    for (const f of moreFlushers) f.start();
    webhooks.onDelivery = (outcome) => webhookDeliveries.labels(outcome).inc();
    webhooks.start();
    messages.onOutcome = (channel, type, outcome) => messagesTotal.labels(channel, type, outcome).inc();
    messages.start();
    scheduler.start();
    batches.start();
  }
  if (http) log.info('laurel listening', { host: config.host, port, background: roles.background });
  else log.info('laurel running background jobs');

  let closed = false;
  return {
    ctx,
    port,
    roles,
    // The WebSocket endpoint is a GET route too (an upgrade), described in /openapi.json with the others.
    routes: [...routes.map(({ method, pattern }) => ({ method, pattern })), ...(hub ? [{ method: 'get' as const, pattern: LIVE_PATH }] : [])],
    live: hub,
    flusher,
    scheduler,
    webhooks,
    messages,
    batches,
    get closed() {
      return closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      stopLagReport();
      stopDeadLetterReport();
      // Live clients first, with a close code telling them to reconnect (closing the HTTP server would just cut them).
      await hub?.close();
      await http?.close(8_000);
      await scheduler.stop();
      await batches.stop();
      for (const f of [flusher, ...moreFlushers]) await f.stop();
      // What was accepted until now goes to Postgres before exit. An HTTP-only
      // process leaves that to the background process, which stops after it.
      // Each flusher drains: its own unacknowledged entries first, then what is left.
      if (roles.background) {
        for (const f of [flusher, ...moreFlushers]) await f.drain().catch((err) => log.warn('final flush failed', { err: (err as Error).message }));
      }
      await webhooks.stop();
      await messages.stop();
      sub.disconnect();
      await redis.quit().catch(() => redis.disconnect());
      await flushDb.end();
      await db.end();
    },
  };
}
