import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../context';
import { isUnavailable } from '../errors';
import { DomainError } from '../domain/errors';
import { statusOf } from '../http/errors';
import { derivedId } from '../domain/ids';
import type { Tenant } from '../store/tenants';
import { addRejection } from '../store/batch-rejections';
import type { BatchEvent } from '../wire/admin';
import { recordEvent } from '../services/record-event';
import { Poller } from '../poller';

const GROUP = 'apply';

/**
 * Batches of events accepted by `POST /admin/v1/metrics/events`: a Redis
 * stream per tenant (one entry per batch, appended in one call, durable as
 * Redis is), applied in the background process by the same code as the
 * single event endpoint (recordEvent), in batch order: a run of items of
 * distinct users is applied at once (sent in order; in one Redis call with
 * group commit), the next run once it is done, so a user's events never
 * overtake each other.
 *
 * Each item is applied once: an item without an idempotencyKey gets one
 * derived from its batch entry and position, so an entry applied again after
 * a crash (it is acknowledged only once every item is done) changes nothing
 * twice. An item refused when its turn comes (metric deleted meanwhile,
 * points blocked, ...) is written to `batch_rejections` with the status and
 * error the single endpoint would have answered. A store that is unreachable
 * leaves the entry waiting: it is tried again on a later pass.
 */
/**
 * The items in order, cut into runs in which no user appears twice (each a
 * list of item indexes). Applied at once, a run's items reach Redis in
 * order; an item that must be retried (its config changed,
 * its user's zone corrected) goes after the rest of its run, never after a
 * later item of its own user.
 */
export function waves(items: readonly { user: { id: string } }[]): number[][] {
  const out: number[][] = [];
  let run: number[] = [];
  let users = new Set<string>();
  items.forEach((item, index) => {
    if (users.has(item.user.id)) {
      out.push(run);
      run = [];
      users = new Set();
    }
    users.add(item.user.id);
    run.push(index);
  });
  if (run.length) out.push(run);
  return out;
}

export class BatchQueue {
  private readonly consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly groups = new Set<string>();
  /** Passes run one at a time (the loop and a caller of drain() share one consumer name). */
  private readonly poller: Poller<void>;

  constructor(
    private readonly ctx: Ctx,
    private readonly pollMs = 100,
    /** Entries another (dead) consumer held this long are taken over. */
    private readonly claimMs = 30_000,
  ) {
    this.poller = new Poller({
      everyMs: pollMs,
      round: () => this.pass(),
      failed: (err) => this.ctx.log.warn('batch consumer pass failed', { err: err.message }),
    });
  }

  /** Queue validated items (one XADD) and mark the tenant as having work. */
  async accept(tenant: Tenant, items: BatchEvent[]): Promise<void> {
    const { redis, keys } = this.ctx;
    await redis.xadd(keys.tenant(tenant.slot).batches, '*', 'items', JSON.stringify(items));
    await redis.sadd(keys.batchTenants, tenant.id);
  }

  start(): void {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  /** Apply everything queued now (every tenant), until the streams are empty or a store is unreachable. */
  drain(): Promise<void> {
    return this.poller.round();
  }

  private async pass(): Promise<void> {
    const { redis, keys, tenants } = this.ctx;
    for (const id of await redis.smembers(keys.batchTenants)) {
      const tenant = await tenants.getById(id);
      if (!tenant) {
        await redis.srem(keys.batchTenants, id);
        continue;
      }
      const stream = keys.tenant(tenant.slot).batches;
      while (await this.applyNext(tenant, stream));
      // Unmark an empty stream; a batch accepted meanwhile marks it again (accept adds after appending).
      if ((await redis.xlen(stream)) === 0) {
        await redis.srem(keys.batchTenants, id);
        if ((await redis.xlen(stream)) > 0) await redis.sadd(keys.batchTenants, id);
      }
    }
  }

  /** Apply one entry: this consumer's unfinished one, a dead consumer's, or the next new one. False when none. */
  private async applyNext(tenant: Tenant, stream: string): Promise<boolean> {
    const { redis } = this.ctx;
    if (!this.groups.has(stream)) {
      await redis.xgroup('CREATE', stream, GROUP, '0', 'MKSTREAM').catch((err: Error) => {
        if (!err.message.includes('BUSYGROUP')) throw err;
      });
      this.groups.add(stream);
    }
    type Entries = [string, string[]][];
    const read = async (from: string) => {
      const r = (await redis.xreadgroup('GROUP', GROUP, this.consumer, 'COUNT', 1, 'STREAMS', stream, from)) as [string, Entries][] | null;
      return r?.[0]?.[1]?.[0] ?? null;
    };
    let entry = await read('0');
    if (!entry) {
      const claimed = (await redis.xautoclaim(stream, GROUP, this.consumer, this.claimMs, '0', 'COUNT', 1)) as [string, Entries];
      entry = claimed[1]?.[0] ?? null;
    }
    entry ??= await read('>');
    if (!entry) return false;
    const [entryId, fields] = entry;
    const items = JSON.parse(fields[fields.indexOf('items') + 1]!) as BatchEvent[];
    for (const wave of waves(items)) {
      const applied = await Promise.all(wave.map((index) => this.applyItem(tenant, entryId, index, items[index]!)));
      if (applied.includes(false)) return false;
    }
    await redis.xack(stream, GROUP, entryId);
    await redis.xdel(stream, entryId);
    return true;
  }

  /** Apply one item; false when a store is unreachable (the entry is retried later). */
  private async applyItem(tenant: Tenant, entryId: string, index: number, item: BatchEvent): Promise<boolean> {
    const { key, idempotencyKey, ...body } = item;
    try {
      await recordEvent(this.ctx, tenant, key, body, idempotencyKey ?? `laurel-batch:${entryId}:${index}`);
      return true;
    } catch (err) {
      const refused = err instanceof DomainError ? err : null;
      if (isUnavailable(err) || refused?.kind === 'unavailable') return false;
      // Kept with the status the single event endpoint would have answered.
      const status = refused ? statusOf(refused) : 500;
      const message = refused ? refused.message : 'Internal error';
      if (!refused) this.ctx.log.error('batch item failed', { tenant: tenant.id, entryId, index, err: (err as Error).stack });
      await addRejection(this.ctx.db, tenant.id, {
        id: derivedId(tenant.id, entryId, String(index)), batchId: entryId, index, item, status, error: message, at: new Date(this.ctx.clock.now()),
      });
      return true;
    }
  }
}
