import { createHash } from 'node:crypto';
import { joinGroup } from '../domain/leaderboards';

/**
 * Every Redis key name is built here. A tenant's keys share one hash tag
 * (`{<prefix hash>.t<slot>}`), so each script touches a single cluster slot
 * and a tenant lives wholly on one shard. The prefix's hash in the tag spreads
 * deployments that share a cluster (and test files) over the shards too: with
 * `{t<slot>}` alone, every deployment's tenant 1 would land on one slot.
 */
export class Keys {
  private readonly tagBase: string;

  constructor(readonly prefix: string) {
    // A hash rather than the prefix itself: a prefix may hold braces.
    this.tagBase = createHash('sha1').update(prefix).digest('hex').slice(0, 6);
  }

  tenant(slot: number): TenantKeys {
    return new TenantKeys(`${this.prefix}{${this.tagBase}.t${slot}}`);
  }

  /** The scheduler's lease. */
  get schedulerLease(): string {
    return `${this.prefix}lease:scheduler`;
  }

  /** An API key's rate-limit state (GCRA's theoretical arrival time), one slot per key. */
  rateLimit(keyId: string): string {
    return `${this.prefix}{rl:${keyId}}`;
  }

  /**
   * Set once Redis holds this deployment's state (see store/restore.ts). Its
   * name changes with the layout of the keys, so a Redis written under an
   * older layout is rebuilt from Postgres under the new names.
   */
  get restored(): string {
    return `${this.prefix}restored:2`;
  }

  /** Held by the one process rebuilding Redis from Postgres. */
  get restoreLock(): string {
    return `${this.prefix}lock:restore`;
  }

  /** Ids of tenants whose batch stream may hold entries. */
  get batchTenants(): string {
    return `${this.prefix}batch:pending`;
  }

  /** Signs live tokens when LIVE_TOKEN_SECRET is not set (made once, shared by every process). */
  get liveTokenSecret(): string {
    return `${this.prefix}live:secret`;
  }

  /** Pub/sub channel for cache invalidation across processes. */
  get channel(): string {
    return `${this.prefix}invalidate`;
  }

  /** Glob matching every key of this deployment (used by tests to clean up). */
  get all(): string {
    return `${this.prefix}*`;
  }
}

export class TenantKeys {
  constructor(readonly tag: string) {}
  /** Compiled configuration the scripts and the server read (hash, with `ver`). */
  get config(): string {
    return `${this.tag}:cfg`;
  }
  /** One hash per user: profile fields and per-metric totals. */
  user(userId: string): string {
    return `${this.tag}:u:${userId}`;
  }
  /**
   * A user's recent history (points awards, leaderboard changes; see
   * src/domain/recent-history.ts): a string beside the user hash, in the same slot.
   */
  recent(userId: string): string {
    return `${this.tag}:r:${userId}`;
  }
  /** A bucket of used idempotency keys (a set of 64-bit integers). */
  idempotency(bucket: number): string {
    return `${this.tag}:i:${bucket}`;
  }
  /** Change stream drained into Postgres by the flusher. */
  get stream(): string {
    return `${this.tag}:x`;
  }
  /** Accepted batches of events waiting to be applied (one entry per batch). */
  get batches(): string {
    return `${this.tag}:bx`;
  }
  /** Users with time-trigger points due, scored by when (ms). */
  get due(): string {
    return `${this.tag}:due`;
  }
  /** Which set of time triggers the due set was last filled for. */
  get dueSignature(): string {
    return `${this.tag}:due:sig`;
  }
  /** Users by when the retention scheduler should next look at them (ms; see src/scheduler/retention.ts). */
  get retentionDue(): string {
    return `${this.tag}:rd`;
  }
  /** Which retention settings the retention due set was last filled for. */
  get retentionSignature(): string {
    return `${this.tag}:rd:sig`;
  }
  /** Which set of active achievements users were last reviewed against. */
  get reviewSignature(): string {
    return `${this.tag}:review:sig`;
  }
  /** Glob of every user hash of the tenant. */
  get users(): string {
    return `${this.tag}:u:*`;
  }
  /** Prefix of leaderboard sets: `<prefix><board slot>:<run>:<group>`. */
  get boardPrefix(): string {
    return `${this.tag}:lb:`;
  }
  /** One board run's set of one breakdown group ('' without breakdowns). */
  board(slot: number, run: number, group: string[]): string {
    return `${this.boardPrefix}${slot}:${run}:${joinGroup(group)}`;
  }
  /** Update counters of board runs (tie order). */
  get boardTicks(): string {
    return `${this.tag}:lbt`;
  }
  /**
   * Prefix of league keys (lua/lib/50-leagues.lua, docs/leagues.md):
   * `<prefix><slot>` state ('d': last run applied to the tiers), `<prefix><slot>:t` settled tiers (user -> index; absent: the
   * lowest), `<prefix><slot>:<run>` the run (cohorts per tier, fill pointer,
   * tie counter, parameters), `<prefix><slot>:<run>:<tier>:<no>` a cohort.
   */
  get leaguePrefix(): string {
    return `${this.tag}:lg:`;
  }
  league(slot: number): string {
    return `${this.leaguePrefix}${slot}`;
  }
  leagueTiers(slot: number): string {
    return `${this.leaguePrefix}${slot}:t`;
  }
  leagueRun(slot: number, run: number): string {
    return `${this.leaguePrefix}${slot}:${run}`;
  }
  cohort(slot: number, run: number, tier: number, no: number): string {
    return `${this.leaguePrefix}${slot}:${run}:${tier}:${no}`;
  }
  /** Counters of the tenant (users, …). */
  get stats(): string {
    return `${this.tag}:st`;
  }
  /** Glob of every key of the tenant. */
  get all(): string {
    return `${this.tag}:*`;
  }
}

/** Consumer group of the change stream. */
export const FLUSH_GROUP = 'flush';
