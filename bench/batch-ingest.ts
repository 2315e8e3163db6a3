import type { Pool } from 'pg';
import { METRICS } from './load';
import { sleep } from './util';

/**
 * Batch ingestion: `POST /admin/v1/metrics/events` with `size` events a
 * request (random users and metrics, as the event load), `batches` requests
 * sent one after the other, timed until every event is in Postgres (applied
 * and flushed: the queue is drained when its last event is durable).
 * `missing` counts accepted events not in Postgres at the end (must be 0).
 */
export async function batchIngest(
  url: string, apiKey: string, pg: Pool, schema: string, users: number, batches: number, size: number,
): Promise<{ events: number; seconds: number; rps: number; missing: number }> {
  const count = async () => Number((await pg.query(`SELECT count(*) AS n FROM "${schema}".events`)).rows[0].n);
  const before = await count();
  const bodies = Array.from({ length: batches }, () =>
    JSON.stringify(Array.from({ length: size }, () => ({
      key: METRICS[Math.floor(Math.random() * METRICS.length)],
      user: { id: `user-${Math.floor(Math.random() * users)}` },
      value: 1 + Math.floor(Math.random() * 20),
    }))),
  );
  const headers = { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' };
  const start = performance.now();
  let accepted = 0;
  for (const body of bodies) {
    const r = await fetch(`${url}/admin/v1/metrics/events`, { method: 'POST', headers, body });
    if (r.status !== 202) throw new Error(`batch: ${r.status} ${await r.text()}`);
    accepted += ((await r.json()) as { accepted: number }).accepted;
  }
  // Done when every accepted event is stored; give up after a minute without progress.
  let last = -1;
  let still = performance.now();
  for (;;) {
    const n = (await count()) - before;
    if (n >= accepted) break;
    if (n !== last) [last, still] = [n, performance.now()];
    else if (performance.now() - still > 60_000) break;
    await sleep(20);
  }
  const seconds = (performance.now() - start) / 1000;
  const missing = accepted - ((await count()) - before);
  return { events: accepted, seconds, rps: accepted / seconds, missing };
}
