import type { Pool } from 'pg';
import { forbidden, unauthorized } from '../errors';
import { TtlCache } from '../domain/ttl-cache';
import { digest, hashSecret, matches, splitKey } from './api-keys';
import type { Clock } from '../clock';
import type { RateLimit, RateLimiter } from './rate-limit';

export type Principal =
  /** keyId: the stored key's id, or ENV_ADMIN_ID for ADMIN_API_KEY (absent only for principals made in process). */
  | { kind: 'admin'; keyId?: string }
  | { kind: 'application'; keyId: string; tenantId: string; userId: string };

interface StoredKey {
  id: string;
  /** sha256 of the stored secret hash (see matches). */
  secretHashDigest: Buffer;
  principal: Principal;
  /** The rate limit that applies (null: none). */
  limit: RateLimit | null;
}

/**
 * Rate-limit id of the ADMIN_API_KEY from the environment (stored keys use their prefix, which has an underscore),
 * and its fixed key id where a change is attributed to a key (stored keys use their uuid).
 */
export const ENV_ADMIN_ID = 'env-admin';

/**
 * Resolves X-API-KEY to a principal. Keys are looked up by prefix in Postgres
 * and cached briefly in process; deleting or changing a key broadcasts an
 * invalidation so other processes drop it at once (the TTL is the backstop).
 * A known key is then counted against its rate limit, if it has one.
 */
export class Authenticator {
  private readonly cache: TtlCache<string, StoredKey | null>;
  /** The environment's admin key, as its digest (one hash per check instead of two). */
  private readonly envAdminDigest: Buffer | null;

  constructor(
    private readonly db: Pool,
    envAdminKey: string | undefined,
    clock: Clock,
    private readonly limiter: RateLimiter | null = null,
  ) {
    this.cache = new TtlCache(clock, 50_000);
    this.envAdminDigest = envAdminKey === undefined ? null : digest(envAdminKey);
  }

  async authenticate(presented: string): Promise<Principal> {
    if (!presented) throw unauthorized();
    if (this.envAdminDigest && matches(presented, this.envAdminDigest)) {
      if (this.limiter?.fallback) await this.limiter.take(ENV_ADMIN_ID, this.limiter.fallback);
      return { kind: 'admin', keyId: ENV_ADMIN_ID };
    }
    const parts = splitKey(presented);
    if (!parts) throw unauthorized();
    let stored = this.cache.get(parts.prefix);
    if (stored === undefined) {
      stored = await this.load(parts.prefix);
      // Unknown prefixes are remembered briefly too, so guessing costs no query.
      this.cache.set(parts.prefix, stored, stored ? 60_000 : 5_000);
    }
    if (!stored || !matches(hashSecret(parts.secret), stored.secretHashDigest)) throw unauthorized();
    if (stored.limit) await this.limiter!.take(parts.prefix, stored.limit);
    return stored.principal;
  }

  /** Drop a key from this process's cache (after delete, or on a broadcast). */
  forget(prefix: string): void {
    this.cache.delete(prefix);
  }

  private async load(prefix: string): Promise<StoredKey | null> {
    const { rows } = await this.db.query<{
      id: string; secret_hash: string; kind: string; tenant_id: string | null; user_id: string | null; rate_limit: number | null; rate_burst: number | null;
    }>('SELECT id, secret_hash, kind, tenant_id, user_id, rate_limit, rate_burst FROM api_keys WHERE prefix = $1', [prefix]);
    const r = rows[0];
    if (!r) return null;
    const principal: Principal =
      r.kind === 'admin'
        ? { kind: 'admin', keyId: r.id }
        : { kind: 'application', keyId: r.id, tenantId: r.tenant_id!, userId: r.user_id! };
    const limit = this.limiter?.resolve({ perSecond: r.rate_limit, burst: r.rate_burst }) ?? null;
    return { id: r.id, secretHashDigest: digest(r.secret_hash), principal, limit };
  }
}

export function requireAdmin(p: Principal): void {
  if (p.kind !== 'admin') throw forbidden('Application API keys cannot use the Admin API');
}

/** An application key acts only for its own user. */
export function requireUser(p: Principal, userId: string): void {
  if (p.kind === 'application' && p.userId !== userId) throw forbidden('This API key is scoped to another user');
}
