import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/client';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../observability/log';
import { FLUSH_GROUP, Keys } from '../redis/keys';
import { together, tx } from '../store/db';
import type { Tenant, Tenants } from '../store/tenants';
import { DeadLetters, isPermanent } from './dead-letters';
import { systemClock } from '../clock';
import { changeOwner, UserChangeRecord } from '../engine/change-record';
import { Batch, keptAfterErasures, StreamEntry, UNIQUE_VIOLATION, writeBatch } from './flush-batch';

/** Records a flusher reads and writes at once. */
export const FLUSH_BATCH = 500;
/**
 * Serialization failure, deadlock, and a unique key taken by another
 * flusher's commit of the same record (see copyUnlessStored): a retry goes through.
 */
const RETRYABLE = new Set(['40001', '40P01', UNIQUE_VIOLATION]);

/** What a BatchHook reads of a batch (see Batch). */
export interface BatchRecords {
  userIds(): string[];
  records(): Iterable<UserChangeRecord>;
}

/**
 * Derives more rows from a batch in the batch's own transaction (webhook
 * deliveries). `begin` runs before anything of the batch is written; the
 * step it returns (if any) runs after everything else; `committed` after the
 * commit of a batch that had such a step.
 */
export interface BatchHook {
  begin(c: PoolClient, t: Tenant, batch: BatchRecords): Promise<((c: PoolClient) => Promise<void>) | null>;
  committed(): void;
}

/**
 * Moves change records from each tenant's stream into Postgres: at least once
 * (entries are acknowledged and deleted only after the commit), idempotently
 * (events are stored once by the tenant's flush mark; a profile change
 * older than the stored row is ignored). Entries left pending by a crashed
 * process are claimed after a while.
 * This is the stream consumer; the rows and SQL are in flush-batch.ts.
 */
export class Flusher {
  /** Its name in the streams' consumer group: the process id tells which process holds unacknowledged entries. */
  private readonly consumer = `flusher-${process.pid}-${randomUUID().slice(0, 8)}`;
  private tenants: Tenant[] = [];
  private tenantsAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly pending = new Set<number>();
  /** Cycles never overlap: an entry read by one must be committed before another looks. */
  private queue: Promise<unknown> = Promise.resolve();

  private lastLagLog = 0;
  /** A refresh of the tenant list started by lag() (see knownTenants). */
  private listing: Promise<void> | null = null;

  constructor(
    private readonly db: Pool,
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly directory: Tenants,
    private readonly log: Logger,
    private readonly intervalMs = 50,
    /** How long another consumer's unacknowledged entries wait before we take them over. */
    private readonly claimIdleMs = 30_000,
    private readonly hook: BatchHook | null = null,
    private readonly deadLetters: DeadLetters = new DeadLetters(db, systemClock, log),
  ) {}

  /** Entries not yet in Postgres, and the age of the oldest (seconds), over every tenant. */
  async lag(): Promise<{ entries: number; seconds: number }> {
    let entries = 0;
    let oldest = Infinity;
    for (const t of await this.knownTenants()) {
      const stream = this.keys.tenant(t.slot).stream;
      const [len, first] = await Promise.all([this.redis.xlen(stream), this.redis.xrange(stream, '-', '+', 'COUNT', 1)]);
      entries += len;
      const id = first[0]?.[0];
      if (id) oldest = Math.min(oldest, Number(id.split('-')[0]));
    }
    return { entries, seconds: oldest === Infinity ? 0 : Math.max(0, (Date.now() - oldest) / 1000) };
  }

  /**
   * The tenants to read the lag of, without waiting on Postgres once they are
   * known (the lag is wanted most while Postgres is away). A running flusher
   * keeps the list fresh itself; one that does not run (an HTTP-only
   * process, which reads the lag for /readyz and /metrics) refreshes it here,
   * in the background, at most every 2 seconds.
   */
  private async knownTenants(): Promise<Tenant[]> {
    if (!this.tenants.length) {
      this.tenants = await this.directory.all();
      this.tenantsAt = Date.now();
    } else if (Date.now() - this.tenantsAt >= 2000 && !this.listing) {
      this.listing = this.directory
        .all()
        .then((all) => {
          this.tenants = all;
          this.tenantsAt = Date.now();
        })
        .catch(() => undefined) // Postgres away: keep the last list
        .finally(() => (this.listing = null));
    }
    return this.tenants;
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.exclusive(() => this.cycle())
        .then((n) => {
          if (!this.stopped) this.timer = setTimeout(tick, n >= FLUSH_BATCH ? 0 : this.intervalMs);
        })
        .catch((err) => {
          this.log.warn('flush cycle failed', { err: (err as Error).message });
          if (!this.stopped) this.timer = setTimeout(tick, 1000);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Flush until every tenant's stream is empty (tests, shutdown). */
  async drain(): Promise<void> {
    this.tenantsAt = 0;
    while ((await this.exclusive(() => this.cycle())) > 0);
  }

  /**
   * Write a user's records up to and including stream id `upTo` now, outside
   * the consumer group (read your writes: a read from Postgres must not wait
   * for the flusher's lag). Only that user's records are written, so the cost
   * is a scan of the unflushed prefix of the stream, not its write. Without
   * `userId`, every record up to `upTo` is written (reads over many users).
   * The consumers may hold some of the same records: every write is
   * idempotent and versioned (a user's records are written in stream order
   * here too), so writing one twice changes nothing, and acknowledging it
   * twice is harmless.
   */
  async flushThrough(t: Tenant, upTo: string, userId?: string): Promise<void> {
    const stream = this.keys.tenant(t.slot).stream;
    for (let from = '-'; ;) {
      const page = (await this.redis.xrange(stream, from, upTo, 'COUNT', FLUSH_BATCH)) as StreamEntry[];
      const mine = userId === undefined ? page : page.filter((e) => readableOwner(e[1]) === userId);
      if (mine.length) {
        await this.writeOrSetAside(t, mine);
        const ids = mine.map((e) => e[0]);
        await this.redis.multi().xack(stream, FLUSH_GROUP, ...ids).xdel(stream, ...ids).exec();
      }
      if (page.length < FLUSH_BATCH) return;
      from = `(${page[page.length - 1]![0]}`;
    }
  }

  /** Write every record acknowledged so far for the tenant (reads over many users). */
  async flushAll(t: Tenant): Promise<void> {
    const last = await this.redis.xrevrange(this.keys.tenant(t.slot).stream, '+', '-', 'COUNT', 1);
    if (last[0]) await this.flushThrough(t, last[0][0]);
  }

  /**
   * Side by side with other flushers, a deadlock or a taken key is possible,
   * and a retry resolves it. A batch's first try expects none of its rows
   * stored (writeBatch's firstTry); a retry skips those stored.
   */
  private async retryingConflicts(fn: (firstTry: boolean) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn(attempt === 1);
      } catch (err) {
        if (attempt >= 3 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One pass over all tenants; returns the number of entries written. */
  private async cycle(): Promise<number> {
    await this.refreshTenants();
    let n = 0;
    // A tenant whose shard is down fails alone: the others still get their turn.
    let failed: unknown = null;
    for (const t of this.tenants) {
      try {
        n += await this.flushTenant(t);
      } catch (err) {
        failed ??= err;
      }
    }
    if (failed) throw failed;
    // A backlog is worth a line in the log, at most every 10 seconds.
    if (Date.now() - this.lastLagLog > 10_000) {
      this.lastLagLog = Date.now();
      const lag = await this.lag();
      if (lag.entries > 1000 || lag.seconds > 5) this.log.warn('flusher behind', lag);
    }
    return n;
  }

  private async refreshTenants(): Promise<void> {
    if (Date.now() - this.tenantsAt < 2000) return;
    try {
      this.tenants = await this.directory.all();
      this.tenantsAt = Date.now();
    } catch (err) {
      this.log.warn('flusher could not list tenants', { err: (err as Error).message });
    }
  }

  private async flushTenant(t: Tenant): Promise<number> {
    const stream = this.keys.tenant(t.slot).stream;
    // Our own unacknowledged entries first (a failed commit), then new ones.
    const from = this.pending.has(t.slot) ? '0' : '>';
    let entries: StreamEntry[];
    try {
      entries = await this.read(stream, from);
    } catch (err) {
      if (!String((err as Error).message).includes('NOGROUP')) throw err;
      // Only on an existing stream: a deleted tenant must not get one back.
      if (await this.redis.exists(stream)) await this.redis.xgroup('CREATE', stream, FLUSH_GROUP, '0').catch(() => undefined);
      return 0;
    }
    if (entries.length === 0) {
      this.pending.delete(t.slot);
      // Our own backlog is done: go on to new entries now, or a drain would stop short of them.
      return from === '0' ? this.flushTenant(t) : this.claimStale(t, stream);
    }
    this.pending.add(t.slot);
    await this.writeOrSetAside(t, entries);
    const ids = entries.map((e) => e[0]);
    await this.redis.multi().xack(stream, FLUSH_GROUP, ...ids).xdel(stream, ...ids).exec();
    if (from === '>') this.pending.delete(t.slot);
    return entries.length;
  }

  private async read(stream: string, from: string): Promise<StreamEntry[]> {
    const res = (await this.redis.xreadgroup('GROUP', FLUSH_GROUP, this.consumer, 'COUNT', FLUSH_BATCH, 'STREAMS', stream, from)) as
      | [string, StreamEntry[]][]
      | null;
    return res?.[0]?.[1] ?? [];
  }

  /** Take over entries another (dead) consumer read but never acknowledged. */
  private async claimStale(t: Tenant, stream: string): Promise<number> {
    const [, entries] = (await this.redis.xautoclaim(stream, FLUSH_GROUP, this.consumer, this.claimIdleMs, '0-0', 'COUNT', FLUSH_BATCH)) as [string, StreamEntry[]];
    const live = entries.filter((e) => e[1] !== null);
    if (live.length === 0) return 0;
    this.pending.add(t.slot);
    await this.writeOrSetAside(t, live);
    const ids = live.map((e) => e[0]);
    await this.redis.multi().xack(stream, FLUSH_GROUP, ...ids).xdel(stream, ...ids).exec();
    this.pending.delete(t.slot);
    return live.length;
  }

  /**
   * Write a batch; when Postgres refuses it for good (a data error, see
   * isPermanent), halve it until the refused records stand alone, write the
   * rest, and move each refused one to the dead letters. The caller then
   * acknowledges the whole batch. Halving finds one bad record among 500 in
   * about 18 transactions, where one by one would take 500. Records stay in
   * stream order, and every write is idempotent and versioned, so the halves
   * land as the whole batch would have. Any other error (an outage) throws,
   * and the batch is retried as before, dead letters included.
   */
  private async writeOrSetAside(t: Tenant, entries: StreamEntry[]): Promise<void> {
    try {
      await this.retryingConflicts((firstTry) => this.write(t, entries, firstTry));
    } catch (err) {
      if (!isPermanent(err)) throw err;
      if (entries.length === 1) return this.deadLetters.add(t, entries[0]![0], entries[0]![1], err);
      const half = Math.ceil(entries.length / 2);
      await this.writeOrSetAside(t, entries.slice(0, half));
      await this.writeOrSetAside(t, entries.slice(half));
    }
  }

  /** Write one record again (a dead letter's replay), through the same code as any batch; throws what Postgres says. */
  replay(t: Tenant, streamId: string, fields: string[]): Promise<void> {
    return this.write(t, [[streamId, fields]], false);
  }

  private async write(t: Tenant, entries: StreamEntry[], firstTry: boolean): Promise<void> {
    let batch = new Batch(entries);
    const derived = await tx(this.db, async (c) => {
      // The tables written below have no foreign key to tenants (one check
      // per row cost more than any other part of a flush): this lock is that
      // check, once. A tenant removed meanwhile has nothing left to keep.
      // Records of a user erased after they were written are dropped (the
      // erasure locks this tenant row to delete what was flushed before). A
      // statement of its own, after the lock (sent with it): one taking the
      // lock too would read the tombstones as of before an erasure it waited for.
      const [live, kept] = await together(
        c,
        () => c.query({ name: 'flush-tenant-lock', text: 'SELECT 1 FROM tenants WHERE id = $1 FOR KEY SHARE', values: [t.id] }),
        () => keptAfterErasures(c, t.id, entries),
      );
      if (!live.rowCount) return null;
      if (kept) batch = new Batch(kept);
      const step = this.hook ? await this.hook.begin(c, t, batch) : null;
      await writeBatch(c, t.id, batch, firstTry);
      if (step) await step(c);
      return step;
    });
    if (derived) this.hook!.committed();
  }
}

/** changeOwner for a raw entry, null when unreadable (the consumers set those aside). */
function readableOwner(flat: string[]): string | null {
  try {
    return changeOwner(flat);
  } catch {
    return null;
  }
}

