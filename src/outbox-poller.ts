/** Finished rows are pruned at most this often. */
const PRUNE_EVERY_MS = 600_000;

/**
 * The polling of an outbox in Postgres (messages, webhook deliveries): once
 * started, a round every `pollMs` (or at once when kicked), then a prune of
 * finished rows at most every ten minutes. A failure is handed to `failed`
 * and the next round still comes. Rounds run one at a time in a process,
 * whoever asks (the timer, or runOnce in tests); polling uses real timers.
 */
export class OutboxPoller {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private running: Promise<number> = Promise.resolve(0);
  private lastPrune = 0;

  constructor(
    private readonly pollMs: number,
    /** One round: claim due rows and send them; how many it claimed. */
    private readonly work: () => Promise<number>,
    private readonly prune: () => Promise<void>,
    private readonly failed: (err: Error) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.pollMs);
  }

  /** Stop polling, and wait for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running.catch(() => undefined);
  }

  /** Poll now (new rows were just committed); nothing once stopped. */
  kick(): void {
    if (!this.stopped) this.schedule(0);
  }

  /** One round, after the one in progress; how many rows it claimed. */
  round(): Promise<number> {
    const run = this.running.catch(() => 0).then(() => this.work());
    this.running = run;
    return run;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.round()
        .then(() => this.pruneNow())
        .catch((err) => this.failed(err as Error))
        .finally(() => {
          if (!this.stopped && !this.timer) this.schedule(this.pollMs);
        });
    }, ms);
  }

  private async pruneNow(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.prune();
  }
}
