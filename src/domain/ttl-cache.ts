import type { Clock } from '../clock';

/** A bounded map whose entries expire; the oldest entry goes first when full. */
export class TtlCache<K, V> {
  private readonly map = new Map<K, { v: V; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly max: number,
  ) {}

  get(k: K): V | undefined {
    const e = this.map.get(k);
    if (!e) return undefined;
    if (e.until < this.clock.now()) {
      this.map.delete(k);
      return undefined;
    }
    return e.v;
  }

  set(k: K, v: V, ttlMs: number): void {
    this.map.delete(k);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as K);
    this.map.set(k, { v, until: this.clock.now() + ttlMs });
  }

  delete(k: K): void {
    this.map.delete(k);
  }

  clear(): void {
    this.map.clear();
  }
}
