/** Finished rows are pruned at most this often. */
const PRUNE_EVERY_MS = 600_000;

export interface PollerOptions<T> {
  /** The wait between rounds. */
  everyMs: number;
  /** One round of work (for an outbox: how many rows it claimed). */
  round: () => Promise<T>;
  /** Told a failed round; the next round still comes. */
  failed: (err: Error) => void;
  /** Deletes finished rows (an outbox's): after a timed round, at most every ten minutes. */
  prune?: () => Promise<void>;
}

/**
 * Background work on a timer (the scheduler, the batch consumer, the
 * outboxes): once started, a round `everyMs` after the last one ended, or at
 * once when kicked. Rounds run one at a time in a process, whoever asks (the
 * timer, or a test through round()); stop() waits for the one in progress.
 * Real timers, not the clock.
 */
export class Poller<T = unknown> {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private running: Promise<unknown> = Promise.resolve();
  private lastPrune = 0;

  constructor(private readonly opts: PollerOptions<T>) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.opts.everyMs);
  }

  /** Stop polling, and wait for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running.catch(() => undefined);
  }

  /** A round now (new work was just committed); nothing once stopped. */
  kick(): void {
    if (!this.stopped) this.schedule(0);
  }

  /** One round, after the one in progress. */
  round(): Promise<T> {
    const run = this.running.catch(() => undefined).then(() => this.opts.round());
    this.running = run;
    return run;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.round()
        .then(() => this.pruneNow())
        .catch((err) => this.opts.failed(err as Error))
        .finally(() => {
          if (!this.stopped && !this.timer) this.schedule(this.opts.everyMs);
        });
    }, ms);
  }

  private async pruneNow(): Promise<void> {
    if (!this.opts.prune || Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.opts.prune();
  }
}
