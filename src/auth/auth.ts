import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { forbidden, unauthorized } from '../errors';
import { TtlCache } from '../domain/ttl-cache';
import { digest, environmentPrefix, sameDigest, splitKey } from './api-keys';
import type { Clock } from '../clock';
import type { RateLimit, RateLimiter } from './rate-limit';

export type Principal =
  | { kind: 'admin' }
  | { kind: 'application'; keyId: string; tenantId: string; userId: string };

/** Who made an admin request, as the audit log and the key routes name it (never a secret). */
export interface AdminActor {
  id: string;
  prefix: string;
}

interface StoredKey {
  id: string;
  prefix: string;
  /** The stored sha256 of the secret, as bytes: a presented secret's digest is compared with it. */
  secretHash: Buffer;
  principal: Principal;
  /** The rate limit that applies (null: none). */
  limit: RateLimit | null;
}

/** A presented key, recognised. */
interface Found {
  id: string;
  prefix: string;
  principal: Principal;
  limit: RateLimit | null;
  /** What its rate limit is counted under. */
  rateId: string;
}

/** Rate-limit id of the ADMIN_API_KEY from the environment (stored keys use their prefix, which has an underscore). */
const ENV_ADMIN_ID = 'env-admin';
/** An admin key's last use is written at most this often (per process; the UPDATE itself skips a fresher value). */
const LAST_USED_STEP_MS = 60_000;

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
  private readonly envPrefix: string;
  /** The environment key's row id (see ensureAdminKey), read once. */
  private envId: Promise<string> | null = null;
  /** Bumped by forget: a load that started before is not cached (it may have read the row before the change). */
  private generation = 0;
  /** When this process last wrote each admin key's last use. */
  private readonly touched = new Map<string, number>();
  /**
   * An admin key known only to this process, for reads the server makes on a
   * request's behalf (the audit log's before and after): not counted against
   * a rate limit, not recorded as a use. It never leaves memory.
   */
  readonly internalKey = `internal.${randomBytes(32).toString('hex')}`;
  private readonly internalDigest = digest(this.internalKey);

  constructor(
    private readonly db: Pool,
    envAdminKey: string | undefined,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter | null = null,
  ) {
    this.cache = new TtlCache(clock, 50_000);
    this.envAdminDigest = envAdminKey === undefined ? null : digest(envAdminKey);
    this.envPrefix = envAdminKey === undefined ? '' : environmentPrefix(envAdminKey);
  }

  async authenticate(presented: string): Promise<Principal> {
    const found = await this.find(presented);
    if (!found) throw unauthorized();
    if (found.limit) await this.limiter!.take(found.rateId, found.limit);
    if (found.principal.kind === 'admin' && found.id !== 'internal') this.touch(found.id);
    return found.principal;
  }

  /** The admin key a request is made with (null for any other), without counting it against a rate limit. */
  async actor(presented: string): Promise<AdminActor | null> {
    const found = await this.find(presented);
    return found?.principal.kind === 'admin' ? { id: found.id, prefix: found.prefix } : null;
  }

  /** Drop a key from this process's cache (after delete, or on a broadcast). */
  forget(prefix: string): void {
    this.generation++;
    this.cache.delete(prefix);
  }

  private async find(presented: string): Promise<Found | null> {
    if (!presented) return null;
    // One digest of the presented key for both of the process's own keys.
    const presentedDigest = digest(presented);
    if (sameDigest(presentedDigest, this.internalDigest)) return { id: 'internal', prefix: 'internal', principal: { kind: 'admin' }, limit: null, rateId: '' };
    if (this.envAdminDigest && sameDigest(presentedDigest, this.envAdminDigest)) {
      if (!this.envId) {
        this.envId = this.db.query<{ id: string }>(`SELECT id FROM api_keys WHERE source = 'environment'`).then((r) => r.rows[0]?.id ?? 'environment');
        this.envId.catch(() => (this.envId = null));
      }
      return { id: await this.envId, prefix: this.envPrefix, principal: { kind: 'admin' }, limit: this.limiter?.fallback ?? null, rateId: ENV_ADMIN_ID };
    }
    const parts = splitKey(presented);
    if (!parts) return null;
    let stored = this.cache.get(parts.prefix);
    if (stored === undefined) {
      const generation = this.generation;
      stored = await this.load(parts.prefix);
      // Unknown prefixes are remembered briefly too, so guessing costs no query.
      if (generation === this.generation) this.cache.set(parts.prefix, stored, stored ? 60_000 : 5_000);
    }
    if (!stored || !sameDigest(digest(parts.secret), stored.secretHash)) return null;
    return { id: stored.id, prefix: stored.prefix, principal: stored.principal, limit: stored.limit, rateId: parts.prefix };
  }

  /** Record an admin key's use, at most once a minute, off the request's path (a lost write only leaves it older). */
  private touch(id: string): void {
    const now = this.clock.now();
    if (now - (this.touched.get(id) ?? -Infinity) < LAST_USED_STEP_MS) return;
    this.touched.set(id, now);
    this.db
      .query(`UPDATE api_keys SET last_used = $2 WHERE id::text = $1 AND (last_used IS NULL OR last_used <= $2::timestamptz - interval '1 minute')`, [id, new Date(now)])
      .catch(() => this.touched.delete(id));
  }

  private async load(prefix: string): Promise<StoredKey | null> {
    const { rows } = await this.db.query<{
      id: string; secret_hash: string; kind: string; tenant_id: string | null; user_id: string | null; rate_limit: number | null; rate_burst: number | null;
    }>(
      // A revoked key, and the environment's row (no usable hash), are as unknown.
      `SELECT id, secret_hash, kind, tenant_id, user_id, rate_limit, rate_burst FROM api_keys
       WHERE prefix = $1 AND status = 'active' AND source IS DISTINCT FROM 'environment'`,
      [prefix],
    );
    const r = rows[0];
    if (!r) return null;
    const principal: Principal =
      r.kind === 'admin'
        ? { kind: 'admin' }
        : { kind: 'application', keyId: r.id, tenantId: r.tenant_id!, userId: r.user_id! };
    const limit = this.limiter?.resolve({ perSecond: r.rate_limit, burst: r.rate_burst }) ?? null;
    return { id: r.id, prefix, secretHash: Buffer.from(r.secret_hash, 'hex'), principal, limit };
  }
}

export function requireAdmin(p: Principal): void {
  if (p.kind !== 'admin') throw forbidden('Application API keys cannot use the Admin API');
}

/** An application key acts only for its own user. */
export function requireUser(p: Principal, userId: string): void {
  if (p.kind === 'application' && p.userId !== userId) throw forbidden('This API key is scoped to another user');
}
