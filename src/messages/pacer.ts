/**
 * Spaces one tenant's sends to its rate: each take waits until its slot, the
 * previous slot plus 1/rate seconds (a tenant idle for a while starts at
 * once; no burst beyond that). Wall time, not the business clock: the rate
 * protects relays in real time.
 */
export class Pacer {
  private readonly next = new Map<string, number>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async take(key: string): Promise<void> {
    const t = this.now();
    const slot = Math.max(t, this.next.get(key) ?? 0);
    this.next.set(key, slot + 1000 / this.perSecond);
    if (slot > t) await this.sleep(slot - t);
  }
}
