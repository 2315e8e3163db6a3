import type { Clock } from '../clock';
import type { Keys } from '../redis/keys';
import type { Scripts } from '../redis/scripts';
import { isUnavailable, tooManyRequests } from '../http/errors';

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
    private readonly scripts: Scripts,
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
    let r: number[];
    try {
      r = (await this.scripts.run('rate_limit', [this.keys.rateLimit(keyId)], [
        this.clock.now(), Math.max(1, Math.round(1e6 / limit.perSecond)), limit.burst,
      ])) as number[];
    } catch (err) {
      // Fail open: with Redis away, a request that needs it answers 503 anyway,
      // and one that does not (Postgres reads) should not be refused by the limiter.
      if (isUnavailable(err)) return;
      throw err;
    }
    if (r[0] === 1) return;
    throw tooManyRequests(r[2]!, {
      'RateLimit-Limit': String(limit.burst),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(Math.max(1, Math.ceil(r[3]! / 1000))),
    });
  }
}
