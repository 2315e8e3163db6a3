import type { Clock } from '../clock';
import type { Keys } from '../redis/keys';
import type { Engine } from '../engine';
import { rateLimitCall, RateLimitReply } from '../engine';
import { isUnavailable, tooManyRequests } from '../errors';

/** Requests per second sustained, and how many may come at once. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** A key's own setting as stored: null fields mean "the deployment default"; perSecond 0 means unlimited. */
export interface StoredRateLimit {
  perSecond: number | null;
  burst: number | null;
}

/** The burst a rate gets when none is given: one second's worth. */
export const defaultBurst = (perSecond: number) => Math.max(1, Math.ceil(perSecond));

/**
 * Per-API-key limits, checked in Redis with GCRA (lua/rate_limit.lua): one
 * script call per request, and none at all for an unlimited key.
 */
export class RateLimiter {
  constructor(
    private readonly engine: Engine,
    private readonly keys: Keys,
    private readonly clock: Clock,
    /** Keys without their own setting get this (null: unlimited). */
    readonly fallback: RateLimit | null,
  ) {}

  /** The limit that applies to a key with this stored setting (null: none). */
  resolve(own: StoredRateLimit): RateLimit | null {
    if (own.perSecond === null) return this.fallback;
    if (own.perSecond <= 0) return null;
    return { perSecond: own.perSecond, burst: own.burst ?? defaultBurst(own.perSecond) };
  }

  /** Count one request of `keyId`; 429 with Retry-After when it is over its limit. */
  async take(keyId: string, limit: RateLimit): Promise<void> {
    let r: RateLimitReply;
    try {
      r = await rateLimitCall(this.engine, {
        stateKey: this.keys.rateLimit(keyId), now: this.clock.now(), intervalMicros: Math.max(1, Math.round(1e6 / limit.perSecond)), burst: limit.burst,
      });
    } catch (err) {
      // Fail open: with Redis away, a request that needs it answers 503 anyway,
      // and one that does not (Postgres reads) should not be refused by the limiter.
      if (isUnavailable(err)) return;
      throw err;
    }
    if (r.allowed) return;
    throw tooManyRequests(r.retryAfterMs, {
      'RateLimit-Limit': String(limit.burst),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(Math.max(1, Math.ceil(r.fullInMs / 1000))),
    });
  }
}
