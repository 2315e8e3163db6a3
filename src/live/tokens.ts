import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '../auth/api-keys';
import type { RedisClient } from '../redis/client';

/**
 * What a live connection may see: one tenant, and either everything in it
 * (an admin key) or one user (an application key, or a token minted for a
 * user) plus the boards that user can read over REST.
 */
export interface LiveScope {
  tenantId: string;
  /** null: the admin scope (any user of the tenant). */
  userId: string | null;
  /** The API key it comes from (its prefix): connection limits count per key. */
  keyName: string;
}

interface TokenPayload {
  t: string;
  u: string | null;
  k: string;
  /** Expiry, ms since the epoch. */
  e: number;
}

/**
 * Short-lived tokens for `GET /v1/live?token=…`, so a browser never holds an
 * API key (a browser's WebSocket cannot send headers). A token is an
 * HMAC-SHA256-signed scope with an expiry: stateless, so any process or
 * host of the deployment accepts it, given the same secret. It travels in a
 * URL (and so may land in access logs); that is acceptable because it is
 * good only for opening live connections, and only for minutes.
 */
export class LiveTokens {
  constructor(
    private readonly secret: string,
    private readonly ttlMs: number,
  ) {}

  mint(scope: LiveScope, now: number): { token: string; expiresAt: number } {
    const e = now + this.ttlMs;
    const body = Buffer.from(JSON.stringify({ t: scope.tenantId, u: scope.userId, k: scope.keyName, e } satisfies TokenPayload)).toString('base64url');
    return { token: `lt1.${body}.${this.sign(body)}`, expiresAt: e };
  }

  /** The scope of a valid, unexpired token; else why not. */
  verify(token: string, now: number): LiveScope | { refused: string } {
    const [v, body, sig] = token.split('.');
    if (v !== 'lt1' || !body || !sig || token.length > 2048 || !safeEqual(sig, this.sign(body))) return { refused: 'Invalid live token' };
    let p: TokenPayload;
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenPayload;
    } catch {
      return { refused: 'Invalid live token' };
    }
    if (!(p.e > now)) return { refused: 'Live token expired: mint a new one with POST /v1/live/tokens' };
    return { tenantId: p.t, userId: p.u, keyName: p.k };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** A secret every process of the deployment shares: LIVE_TOKEN_SECRET, else one made once and kept in Redis. */
export async function tokenSecret(configured: string | undefined, redis: RedisClient, key: string): Promise<string> {
  if (configured) return configured;
  await redis.set(key, randomBytes(32).toString('base64url'), 'NX');
  const s = await redis.get(key);
  if (!s) throw new Error('could not read the live token secret from Redis');
  return s;
}
