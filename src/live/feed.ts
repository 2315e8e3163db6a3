import { openRedis, RedisClient, RedisTarget } from '../redis/client';
import type { Logger } from '../observability/log';

type Entry = [id: string, fields: string[]];

/**
 * Follows one tenant's change stream (the one every script call already
 * appends to, and the flusher drains) with XREAD BLOCK from its newest record on, on a
 * connection of its own, for as long as this process has subscribers in the
 * tenant. So the event path does nothing extra for live updates, with or
 * without subscribers, and an event handled by any process or host reaches
 * every process following the stream. Records are read, never acknowledged
 * or deleted: the flusher owns the stream.
 *
 * The flusher deletes records once they are in Postgres, so a reader that
 * falls behind it (a stall, or a lost connection) may find some gone: after a
 * lost connection the reader says so (`onGap`), and subscriptions skip a
 * sequence number so clients resync.
 */
export class StreamFeed {
  private stopped = false;
  private conn: RedisClient | null = null;
  /** The last id read; at first the newest when the feed starts (so no record between two reads is missed, as `$` on each read could). */
  private last = '$';
  readonly done: Promise<void>;
  /** Settled once the feed first reads the stream (or failed to: then it says `onGap` when it can). */
  readonly ready: Promise<void>;
  private setReady!: () => void;

  constructor(
    target: RedisTarget,
    private readonly stream: string,
    private readonly log: Logger,
    /** Raw change records (field, value, ...), decoded by the receiver (engine/change-record). */
    private readonly onRecords: (records: string[][]) => void,
    private readonly onGap: () => void,
  ) {
    this.ready = new Promise((r) => (this.setReady = r));
    this.done = this.run(target).finally(() => this.setReady());
  }

  private async run(target: RedisTarget): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if (!this.conn) {
          // Blocking reads need a connection of their own; no offline queue, no resend: the loop retries.
          this.conn = openRedis(target, { lazyConnect: true, connectionName: 'laurel-live', enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
          this.conn.on('error', () => undefined);
          await this.conn.connect();
          if (this.last === '$') this.last = await this.newest();
          else if (failures > 0) this.onGap();
          this.setReady();
          failures = 0;
        }
        // A timeout keeps the loop able to notice a silent connection loss. The
        // stream's info rides along (pipelined: no round trip of its own) to
        // tell whether the flusher deleted records this reader had not read.
        const before = this.last;
        const [[readErr, res], [, info]] = (await this.conn
          .pipeline()
          .xread('COUNT', 1000, 'BLOCK', 10_000, 'STREAMS', this.stream, before)
          .xinfo('STREAM', this.stream)
          .exec()) as [[Error | null, [string, Entry[]][] | null], [Error | null, unknown[] | undefined]];
        if (readErr) throw readErr;
        if (this.stopped) break;
        const entries = res?.[0]?.[1];
        if (entries?.length) {
          this.last = entries[entries.length - 1]![0];
          this.onRecords(entries.map(([, f]) => f));
        }
        // Deleted past what we had read: the flusher got there first (this
        // process stalled), so some records may never have reached us.
        // Conservative: a resync too many costs one REST read.
        if (info && idAfter(field(info, 'max-deleted-entry-id'), before)) this.onGap();
      } catch (err) {
        if (this.stopped) break;
        failures++;
        // Never read: count what comes from the next connection as the start (a client resyncs on subscribing anyway).
        this.setReady();
        if (failures === 1) this.log.warn('live feed lost its Redis connection', { err: (err as Error).message });
        this.conn?.disconnect();
        this.conn = null;
        await new Promise((r) => setTimeout(r, Math.min(100 * failures, 2000)));
      }
    }
  }

  /** The stream's last id ever (not only of what is left: nothing deleted lies beyond it); 0-0 for a stream not made yet. */
  private async newest(): Promise<string> {
    const info = (await this.conn!.xinfo('STREAM', this.stream).catch(() => null)) as unknown[] | null;
    return (info && field(info, 'last-generated-id')) || '0-0';
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.conn?.disconnect();
    await this.done;
  }
}

function field(info: unknown[], name: string): string | undefined {
  const i = info.indexOf(name);
  return i < 0 ? undefined : String(info[i + 1]);
}

/** Whether stream id `a` comes after `b` (ids are `<ms>-<seq>`). */
export function idAfter(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am > bm || (am === bm && as > bs);
}

