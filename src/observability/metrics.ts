import { collectDefaultMetrics, Counter, Gauge, Metric, Registry } from 'prom-client';

/**
 * The process's Prometheus registry, served by `GET /metrics`. Instruments on
 * the request path (HTTP, scripts) bind their label sets ahead of use, so
 * counting a request is a map lookup and a few additions: prom-client's own
 * `inc`/`observe` hash their labels on every call (about 1 µs each).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

type Labels = Record<string, string | number>;
interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

function labelsOf(names: readonly string[], values: readonly string[]): Labels {
  const out: Labels = {};
  names.forEach((n, i) => (out[n] = values[i]!));
  return out;
}

/** A counter series: add to `value` directly. */
export interface CounterCell {
  value: number;
}

/** A counter whose series are bound once (`bind`) and then incremented in place. */
class BoundCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly cells = new Map<string, { labels: Labels; cell: CounterCell }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series for these label values (the same one for the same values). */
  bind(...values: string[]): CounterCell {
    const id = values.join('\0');
    let s = this.cells.get(id);
    if (!s) this.cells.set(id, (s = { labels: labelsOf(this.labelNames, values), cell: { value: 0 } }));
    return s.cell;
  }

  get() {
    const values: Sample[] = [...this.cells.values()].map((s) => ({ labels: s.labels, value: s.cell.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const s of this.cells.values()) s.cell.value = 0;
  }
}

/** A histogram series: `observe(seconds)`. */
export interface Observer {
  observe(value: number): void;
}

class HistogramSeries implements Observer {
  /** Per bucket (not cumulative); the last counts values above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** A histogram whose series are bound once (`bind`); the exposition matches prom-client's. */
class BoundHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  bind(...values: string[]): Observer {
    const id = values.join('\0');
    let s = this.series.get(id);
    if (!s) this.series.set(id, (s = new HistogramSeries(labelsOf(this.labelNames, values), this.bounds)));
    return s;
  }

  get() {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { ...s.labels, le }, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const s of this.series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

const httpRequests = new BoundCounter('laurel_http_requests_total', 'HTTP requests answered, by route pattern and status', ['method', 'route', 'status']);
const httpSeconds = new BoundHistogram(
  'laurel_http_request_duration_seconds',
  'Time from receiving a request to writing its response, by route pattern',
  ['method', 'route'],
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
);
const scriptSeconds = new BoundHistogram(
  'laurel_redis_script_duration_seconds',
  'Round trip of one Redis script call (FCALL), by script',
  ['script'],
  [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
);

/**
 * Record function of one route (made at startup): counts the answer by
 * status and observes its latency. `route` is the pattern, never the raw
 * path, so the number of series stays fixed. Series appear on first use (a
 * route never called adds nothing to the scrape).
 */
export function routeRecorder(method: string, route: string): (status: number, seconds: number) => void {
  let latency: Observer | null = null;
  const byStatus = new Map<number, CounterCell>();
  return (status, seconds) => {
    let c = byStatus.get(status);
    if (!c) byStatus.set(status, (c = httpRequests.bind(method, route, String(status))));
    c.value++;
    (latency ??= httpSeconds.bind(method, route)).observe(seconds);
  };
}

const scriptObservers = new Map<string, Observer>();
/** Record one script call that started at `started` (performance.now()). */
export function observeScript(name: string, started: number): void {
  let o = scriptObservers.get(name);
  if (!o) scriptObservers.set(name, (o = scriptSeconds.bind(name)));
  o.observe((performance.now() - started) / 1000);
}

export const schedulerRuns = new Counter({
  name: 'laurel_scheduler_runs_total',
  help: 'Scheduler rounds: ok (ran while holding the lease), failed (an error, Redis unreachable for the lease included)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Incremented by the webhook sender for each delivery attempt's final state. */
export const webhookDeliveries = new Counter({
  name: 'laurel_webhook_deliveries_total',
  help: 'Webhook deliveries by outcome (delivered, retry: failed, to be tried again, dead: given up)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Messages Laurel sends itself, by carrier, notification type and the attempt's outcome. */
export const messagesTotal = new Counter({
  name: 'laurel_messages_total',
  help: 'Message attempts by channel (email, apns, fcm, expo), type and outcome (sent, retrying, failed, suppressed)',
  labelNames: ['channel', 'type', 'outcome'] as const,
  registers: [registry],
});

/** Change records the flusher moved to the dead-letter table (Postgres refused them for good). */
export const deadLettered = new Counter({
  name: 'laurel_flusher_dead_letters_total',
  help: 'Change records Postgres refused for good (a data error), moved to the dead_letters table instead of blocking their stream',
  registers: [registry],
});

// Known label values start at zero, so rates and alerts work before the first occurrence.
for (const o of ['ok', 'failed']) schedulerRuns.labels(o).inc(0);
for (const o of ['delivered', 'retry', 'dead']) webhookDeliveries.labels(o).inc(0);
for (const c of ['email', 'apns', 'fcm', 'expo']) {
  for (const ty of ['achievement_completed', 'recap', 'reactivation', 'streak_reminder']) {
    for (const o of ['sent', 'retrying', 'failed', 'suppressed']) messagesTotal.labels(c, ty, o).inc(0);
  }
}

type LagSource = () => Promise<{ entries: number; seconds: number }>;
let lagSource: LagSource | null = null;
let lagPending: Promise<{ entries: number; seconds: number } | null> | null = null;

/** Both lag gauges of one scrape share one reading (they are collected together). */
function readLag(): Promise<{ entries: number; seconds: number } | null> {
  if (!lagSource) return Promise.resolve(null);
  lagPending ??= lagSource()
    .catch(() => null) // Redis unreachable: keep the last values
    .finally(() => (lagPending = null));
  return lagPending;
}

// The lag is global (every tenant's stream), so with several workers the largest report is the answer, not the sum.
function lagGauge(name: string, help: string, figure: 'entries' | 'seconds'): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const lag = await readLag();
      if (lag) this.set(lag[figure]);
    },
  });
}
lagGauge('laurel_flusher_lag_entries', 'Change records not yet written to Postgres, over every tenant', 'entries');
lagGauge('laurel_flusher_lag_seconds', 'Age of the oldest change record not yet written to Postgres', 'seconds');

/** Report this flusher's lag on scrapes; returns the function that stops it. */
export function reportFlusherLag(source: LagSource): () => void {
  lagSource = source;
  return () => {
    if (lagSource === source) lagSource = null;
  };
}

// Dead letters waiting, read from Postgres at each scrape: the counter above
// restarts with the process, this shows what still needs an operator.
let deadLetterSource: (() => Promise<number>) | null = null;
new Gauge({
  name: 'laurel_flusher_dead_letters',
  help: 'Change records set aside by the flusher and not yet replayed or discarded, over every tenant',
  registers: [registry],
  // Every process reads the same table.
  aggregator: 'max',
  async collect() {
    const n = deadLetterSource ? await deadLetterSource().catch(() => null) : null; // Postgres away: keep the last value
    if (n !== null) this.set(n);
  },
});

/** Report the dead letters waiting on scrapes; returns the function that stops it. */
export function reportDeadLetters(source: () => Promise<number>): () => void {
  deadLetterSource = source;
  return () => {
    if (deadLetterSource === source) deadLetterSource = null;
  };
}

/** Reads from Postgres that first wrote unflushed change records there (read your writes): one user's, or a whole tenant's. */
export const readFlushes = new Counter({
  name: 'laurel_read_flushes_total',
  help: "Reads served from Postgres that first wrote the change records it lacked (read your writes): scope user (one user's) or tenant (all)",
  labelNames: ['scope'] as const,
  registers: [registry],
});

/** Live updates: messages not sent to slow clients (updates dropped, views held back), and slow clients closed (4008). */
export const liveDropped = new Counter({
  name: 'laurel_live_dropped_total',
  help: 'Live messages not sent because the client was not reading (updates dropped, views held back until it caught up)',
  registers: [registry],
});
export const liveSlowClosed = new Counter({
  name: 'laurel_live_slow_closed_total',
  help: 'Live connections closed for not reading (4008)',
  registers: [registry],
});
liveDropped.inc(0);
liveSlowClosed.inc(0);

let liveSource: (() => { connections: number; subscriptions: number }) | null = null;
new Gauge({
  name: 'laurel_live_connections',
  help: 'Open live WebSocket connections',
  registers: [registry],
  collect() {
    if (liveSource) this.set(liveSource().connections);
  },
});
new Gauge({
  name: 'laurel_live_subscriptions',
  help: 'Live subscriptions (users and leaderboards)',
  registers: [registry],
  collect() {
    if (liveSource) this.set(liveSource().subscriptions);
  },
});

/** Report this process's live connections on scrapes. */
export function reportLive(source: () => { connections: number; subscriptions: number }): void {
  liveSource = source;
}
