import type { ChildProcess } from 'node:child_process';
import { AggregatorRegistry } from 'prom-client';
import { registry } from './metrics';

/**
 * With WORKERS=N each scrape reaches one worker; on its own it would report
 * that worker's share, and counters would jump between scrapes. So a worker
 * asks the supervisor, which collects the numbers of every child over IPC
 * (the HTTP workers and the background process, whose are the scheduler's
 * and the webhook dispatcher's) and answers with their sum (gauges marked
 * `max` take the largest).
 */
type Message =
  | { laurel: 'metrics:ask'; id: number }
  | { laurel: 'metrics:collect'; id: number }
  | { laurel: 'metrics:part'; id: number; metrics: unknown[] }
  | { laurel: 'metrics:answer'; id: number; text: string | null };

const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' && m !== null && typeof (m as { laurel?: unknown }).laurel === 'string' && typeof (m as { id?: unknown }).id === 'number';

/** How long a scrape waits for the other workers before answering with what it has. */
const WAIT_MS = 2000;

const asked = new Map<number, (text: string | null) => void>();
let askSeq = 0;

/** In a worker: answer the supervisor's collection requests (call once at start). */
export function answerScrapes(): void {
  process.on('message', (m: unknown) => {
    if (!isMessage(m)) return;
    if (m.laurel === 'metrics:collect') {
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ laurel: 'metrics:part', id: m.id, metrics } satisfies Message),
        () => undefined,
      );
    } else if (m.laurel === 'metrics:answer') {
      asked.get(m.id)?.(m.text);
    }
  });
}

/** The exposition text: every worker's under a supervisor, else this process's. */
export async function scrape(): Promise<string> {
  if (!process.env.LAUREL_WORKER || !process.send) return registry.metrics();
  const id = ++askSeq;
  const text = await new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), WAIT_MS + 1000);
    asked.set(id, (t) => {
      clearTimeout(timer);
      resolve(t);
    });
    process.send!({ laurel: 'metrics:ask', id } satisfies Message);
  });
  asked.delete(id);
  // No answer (supervisor busy or gone): this worker's own numbers beat none.
  return text ?? registry.metrics();
}

/** In the supervisor: the handler of its workers' messages. */
export function aggregateScrapes(workers: () => Iterable<ChildProcess>): (from: ChildProcess, m: unknown) => void {
  const rounds = new Map<number, { parts: unknown[][]; left: number; finish: () => void }>();
  let seq = 0;
  return (from, m) => {
    if (!isMessage(m)) return;
    if (m.laurel === 'metrics:part') {
      const r = rounds.get(m.id);
      if (!r) return;
      r.parts.push(m.metrics);
      if (--r.left === 0) r.finish();
      return;
    }
    if (m.laurel !== 'metrics:ask') return;
    const id = ++seq;
    const parts: unknown[][] = [];
    const finish = () => {
      if (!rounds.delete(id)) return;
      clearTimeout(timer);
      let text: Promise<string | null>;
      try {
        text = AggregatorRegistry.aggregate(parts as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
      } catch {
        text = Promise.resolve(null);
      }
      text.then(
        (t) => from.connected && from.send({ laurel: 'metrics:answer', id: m.id, text: t } satisfies Message, () => undefined),
        () => from.connected && from.send({ laurel: 'metrics:answer', id: m.id, text: null } satisfies Message, () => undefined),
      );
    };
    const timer = setTimeout(finish, WAIT_MS);
    const round = { parts, left: 0, finish };
    rounds.set(id, round);
    for (const w of workers()) {
      if (!w.connected) continue;
      round.left++;
      w.send({ laurel: 'metrics:collect', id } satisfies Message, () => undefined);
    }
    if (round.left === 0) finish();
  };
}
