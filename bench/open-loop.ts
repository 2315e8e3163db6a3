import { sleep } from './util';
import { METRICS } from './load';

/**
 * Open-loop load: requests sent on a fixed schedule (`rate` per second),
 * whether or not earlier answers came back, and each latency counted from
 * when its request was due, so a stall is not hidden by sending less during
 * it (coordinated omission). Events of random users and metrics.
 */
export async function openLoop(url: string, apiKey: string, rate: number, seconds: number, users: number): Promise<{ sent: number; errors: number; p50: number; p99: number }> {
  const headers = { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' };
  const latencies: number[] = [];
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(wait);
    const user = `user-${Math.floor(Math.random() * users)}`;
    const metric = METRICS[Math.floor(Math.random() * METRICS.length)];
    inFlight.push(
      fetch(`${url}/v1/metrics/${metric}/event`, { method: 'POST', headers, body: JSON.stringify({ user: { id: user }, value: 1 + Math.floor(Math.random() * 20) }) }).then(
        async (r) => {
          await r.arrayBuffer();
          if (!r.ok) errors++;
          latencies.push(performance.now() - due);
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN) * 100) / 100;
  return { sent: total, errors, p50: at(0.5), p99: at(0.99) };
}
