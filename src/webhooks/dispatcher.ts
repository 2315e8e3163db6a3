import type { Pool } from 'pg';
import type { Clock } from '../clock';
import type { Logger } from '../observability/log';
import { Poller } from '../poller';
import { signatureHeaders } from './signing';

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead';

export interface DispatcherOptions {
  /** How long a receiver may take to answer. */
  timeoutMs: number;
  /** Attempts before a delivery is dead-lettered. */
  maxAttempts: number;
  /** The first retry's delay; each further one doubles it. */
  retryBaseMs: number;
  /** How often to look for due deliveries when nothing prompts it. */
  pollMs: number;
  /** Delivered rows are deleted after this long. */
  retentionMs: number;
  /** An endpoint's signing secret from its stored (sealed) form. */
  openSecret(stored: string): string;
}

/** Deliveries one endpoint may have in flight from this process (one slow receiver holds no more than this). */
const PER_ENDPOINT = 4;
/** All deliveries in flight from this process. */
const MAX_IN_FLIGHT = 64;
/** Retries wait at most this long. */
const MAX_DELAY_MS = 6 * 3_600_000;
const MAX_ERROR_CHARS = 500;

interface Claimed {
  id: string;
  webhook_id: string;
  event_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

/** The wait before retry `attempt + 1`: doubling from the base, with up to 20% jitter so retries spread out. */
export function retryDelay(baseMs: number, attempt: number): number {
  return Math.min(MAX_DELAY_MS, baseMs * 2 ** (attempt - 1)) * (1 + Math.random() * 0.2);
}

/**
 * Sends the outbox. Runs in every process, apart from any request: claims
 * due rows with SKIP LOCKED (so processes never send the same row at once)
 * by pushing their due time past the attempt's timeout (so a process that
 * dies mid-attempt leaves them to be retried), then POSTs each, signed.
 * A 2xx marks it delivered; anything else schedules a retry with exponential
 * backoff, and the last failure dead-letters it. Each endpoint is served in
 * rounds of a few deliveries, so a slow receiver delays only its own.
 * Due-ness comes from the clock; only the polling itself uses real timers.
 */
export class WebhookDispatcher {
  /** Told the outcome of every attempt (for metrics). */
  onDelivery: ((outcome: DeliveryOutcome) => void) | null = null;

  /** Deliveries in flight per endpoint: an endpoint is claimed for again once its round is over. */
  private readonly busy = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly poller: Poller<number>;
  /** Aborts attempts in flight when the process stops. */
  private readonly shutdown = new AbortController();

  constructor(
    private readonly db: Pool,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly opts: DispatcherOptions,
  ) {
    this.poller = new Poller({
      everyMs: opts.pollMs,
      round: () => this.claim(),
      prune: () => this.prune(),
      failed: (err) => this.log.warn('webhook dispatch failed', { err: err.message }),
    });
  }

  start(): void {
    this.poller.start();
  }

  /** Stop polling; attempts in flight are cut short and left due again at once, not counted. */
  async stop(): Promise<void> {
    await this.poller.stop();
    this.shutdown.abort();
    await this.settled();
  }

  /** Look for due deliveries now (new rows were just committed). */
  kick(): void {
    this.poller.kick();
  }

  /** Send everything due now, round after round, and wait for the attempts to finish (tests call this). */
  async runOnce(): Promise<number> {
    let n = 0;
    for (;;) {
      // Sends in flight while claiming keep their endpoints out of the claim,
      // even when they finish before it returns: look again after them.
      const before = this.inFlight.size;
      const claimed = await this.poller.round();
      n += claimed;
      const busy = before > 0 || this.inFlight.size > 0;
      await this.settled();
      if (claimed === 0 && !busy) return n;
    }
  }

  private async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** Claim due deliveries of idle endpoints and start sending them (one claim at a time per process: the poller's). */
  private async claim(): Promise<number> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return 0;
    const now = this.clock.now();
    const { rows } = await this.db.query<Claimed>(
      `WITH due AS (
         SELECT d.id FROM webhooks w CROSS JOIN LATERAL (
           SELECT id FROM webhook_deliveries d
           WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= to_timestamp($1 / 1000.0)
           ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
         ) d
         WHERE w.status = 'active' AND NOT (w.id = ANY($3::uuid[]))
         LIMIT $4
       )
       UPDATE webhook_deliveries d SET next_attempt_at = to_timestamp($5 / 1000.0)
       FROM due, webhooks w WHERE d.id = due.id AND w.id = d.webhook_id
       RETURNING d.id, d.webhook_id, d.event_id, d.payload, d.attempts, w.url, w.secret`,
      [now, PER_ENDPOINT, [...this.busy.keys()], room, now + this.opts.timeoutMs + 60_000],
    );
    for (const r of rows) {
      this.busy.set(r.webhook_id, (this.busy.get(r.webhook_id) ?? 0) + 1);
      const p = this.send(r)
        .catch((err) => this.log.warn('webhook result not recorded', { err: (err as Error).message }))
        .finally(() => {
          this.inFlight.delete(p);
          const left = this.busy.get(r.webhook_id)! - 1;
          if (left > 0) {
            this.busy.set(r.webhook_id, left);
          } else {
            // The endpoint's round is over: its next one need not wait for the poll.
            this.busy.delete(r.webhook_id);
            this.kick();
          }
        });
      this.inFlight.add(p);
    }
    return rows.length;
  }

  private async send(r: Claimed): Promise<void> {
    let status: number | null = null;
    let error: string | null = null;
    // A timer of our own, not AbortSignal.timeout() under AbortSignal.any(): on
    // Node 20 the combined signal can be collected before it fires, and the
    // attempt then waits on a silent receiver for ever (seen in the test suite).
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new DOMException(`No answer within ${this.opts.timeoutMs} ms`, 'TimeoutError')), this.opts.timeoutMs);
    const onShutdown = () => attempt.abort(this.shutdown.signal.reason);
    this.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
    try {
      const timestamp = Math.floor(this.clock.now() / 1000);
      const res = await fetch(r.url, {
        method: 'POST',
        body: r.payload,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'Laurel-Webhooks/1',
          ...signatureHeaders(this.opts.openSecret(r.secret), r.event_id, timestamp, r.payload),
        },
        redirect: 'manual',
        signal: attempt.signal,
      });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (err) {
      if (this.shutdown.signal.aborted) {
        await this.db.query('UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1', [r.id, new Date(this.clock.now())]);
        return;
      }
      const e = err as Error & { cause?: { code?: string; message?: string } };
      error = e.name === 'TimeoutError' ? `No answer within ${this.opts.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    } finally {
      clearTimeout(timer);
      this.shutdown.signal.removeEventListener('abort', onShutdown);
    }
    const now = new Date(this.clock.now());
    const attempts = r.attempts + 1;
    let outcome: DeliveryOutcome;
    if (error === null) {
      outcome = 'delivered';
      await this.db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_attempt_at = $3, last_status = $4, last_error = NULL, delivered_at = $3
         WHERE id = $1`,
        [r.id, attempts, now, status],
      );
    } else {
      outcome = attempts >= this.opts.maxAttempts ? 'dead' : 'retry';
      const next = new Date(now.getTime() + (outcome === 'dead' ? 0 : retryDelay(this.opts.retryBaseMs, attempts)));
      await this.db.query(
        `UPDATE webhook_deliveries SET status = $2, attempts = $3, last_attempt_at = $4, last_status = $5, last_error = $6, next_attempt_at = $7
         WHERE id = $1`,
        [r.id, outcome === 'dead' ? 'dead' : 'pending', attempts, now, status, error.slice(0, MAX_ERROR_CHARS), next],
      );
    }
    this.onDelivery?.(outcome);
  }

  /** Delete delivered rows past retention (a bounded number at a time). */
  private async prune(): Promise<void> {
    await this.db.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE status = 'delivered' AND delivered_at < $1 LIMIT 10000)`,
      [new Date(this.clock.now() - this.opts.retentionMs)],
    );
  }
}
