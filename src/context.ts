import type { RedisClient } from './redis/client';
import type { Pool } from 'pg';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Logger } from './observability/log';
import type { Keys } from './redis/keys';
import type { Engine } from './engine';
import type { Authenticator } from './auth/auth';
import type { Tenant, Tenants } from './store/tenants';
import type { TenantConfigs } from './store/tenant-config';
import type { TtlCache } from './domain/ttl-cache';
import type { SecretBox } from './domain/secret-box';
import type { AuditLog } from './store/audit';

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
  /** Seals and opens stored credentials (AES-256-GCM under SECRETS_KEY). */
  secrets: SecretBox;
  /** Changes made through the Admin API (written by api/audited.ts). */
  audit: AuditLog;
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
