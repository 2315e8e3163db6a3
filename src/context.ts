import type { RedisClient } from './redis/client';
import type { Pool } from 'pg';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Logger } from './log';
import type { Keys } from './redis/keys';
import type { Engine } from './engine';
import { Authenticator, Principal, requireAdmin } from './auth/auth';
import type { Tenant, Tenants } from './store/tenants';
import type { TenantConfig, TenantConfigs } from './store/tenant-config';
import type { TtlCache } from './domain/ttl-cache';
import type { Request } from './http/server';
import { HttpError, unavailable } from './http/errors';

/** The services a request handler may use. */
export interface Ctx {
  config: Config;
  clock: Clock;
  log: Logger;
  db: Pool;
  redis: RedisClient;
  keys: Keys;
  engine: Engine;
  auth: Authenticator;
  tenants: Tenants;
  configs: TenantConfigs;
  /** Last known zone of each user (`slot:userId`), so the first guess is usually right. */
  zones: TtlCache<string, string>;
  /** Tell every process to drop a cached entry (`key:<prefix>`, `tenants`, `config:<slot>`). */
  broadcast(message: string): Promise<void>;
  /** Makes Postgres hold acknowledged changes before a read from there (read your writes). */
  durable: FlushThrough;
}

/**
 * Writes a tenant's unflushed change records to Postgres now, through the
 * flusher's own (idempotent) batch code, so a read from Postgres reflects
 * every acknowledged change whatever the flusher's lag. Throws when Postgres
 * is away (the read answers 503 rather than stale data).
 */
export interface FlushThrough {
  /** The user's records up to and including stream id `id` (their last change). */
  through(tenant: Tenant, userId: string, id: string): Promise<void>;
  /** Every record acknowledged so far (reads over many users). */
  all(tenant: Tenant): Promise<void>;
}

export async function identify(ctx: Ctx, req: Request): Promise<{ principal: Principal; tenant: Tenant }> {
  const principal = await ctx.auth.authenticate(req.apiKey);
  const tenant = await ctx.tenants.resolve(principal, req.tenantId);
  return { principal, tenant };
}

export async function identifyAdmin(ctx: Ctx, req: Request): Promise<Tenant> {
  const principal = await ctx.auth.authenticate(req.apiKey);
  requireAdmin(principal);
  return ctx.tenants.resolve(principal, req.tenantId);
}

/** A script's answer when the config version it was given is out of date. */
export const STALE = Symbol('stale');

/**
 * Run `fn` with the tenant's config; when a script reports the config moved
 * on, reload it and run again (validation included), a few times at most.
 * A refusal (404, 422…) may come from a stale copy too (a metric created a
 * moment ago by another process): before answering it, confirm the version.
 */
export async function withConfig<T>(ctx: Ctx, tenant: Tenant, fn: (cfg: TenantConfig) => Promise<T | typeof STALE>): Promise<T> {
  let cfg = await ctx.configs.get(tenant);
  for (let attempt = 0; attempt < 5; attempt++) {
    let out: T | typeof STALE;
    try {
      out = await fn(cfg);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500 || (await ctx.configs.isCurrent(tenant, cfg.ver))) throw err;
      out = STALE;
    }
    if (out !== STALE) return out;
    cfg = await ctx.configs.reload(tenant);
  }
  throw unavailable('Configuration is changing; retry shortly');
}
