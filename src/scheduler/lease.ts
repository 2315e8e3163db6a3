import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/client';

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * A lease in Redis: whoever holds it does the background work, so N
 * processes do not all repeat it. Expiry is Redis's own (a crashed holder
 * loses it after `ttlMs`). The work itself must stay safe to repeat: a lease
 * can lapse mid-run.
 */
export class Lease {
  private readonly token = randomUUID();
  private held = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly ttlMs: number,
  ) {}

  /** Take or keep the lease; true while we hold it. */
  async acquire(): Promise<boolean> {
    if (this.held) {
      this.held = (await this.redis.eval(RENEW, 1, this.key, this.token, this.ttlMs)) === 1;
      if (this.held) return true;
    }
    this.held = (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
    return this.held;
  }

  async release(): Promise<void> {
    if (this.held) await this.redis.eval(RELEASE, 1, this.key, this.token).catch(() => undefined);
    this.held = false;
  }
}
