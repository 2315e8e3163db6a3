/**
 * Read your writes under load: one client sends an event, then at once reads
 * the user's recent awards (from the user's recent history in Redis when it
 * reaches as far as asked, else from Postgres after a flush), again and
 * again, while the bench's event load runs beside it. A read is stale when
 * its newest award is not the one the event just answered with. Also the
 * same read of another user at the same moment, for comparison.
 */
export interface ReadAfterWrite {
  reads: number;
  stale: number;
  p50: number;
  p90: number;
  p99: number;
  /** The same read of users the loop did not just write. */
  quietP50: number;
  quietP90: number;
  quietP99: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN) * 100) / 100;
};

export async function readAfterWrite(url: string, apiKey: string, seconds: number, users: number): Promise<ReadAfterWrite> {
  const headers = { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' };
  const fresh: number[] = [];
  const quiet: number[] = [];
  let stale = 0;
  const end = Date.now() + seconds * 1000;
  for (let i = 0; Date.now() < end; i++) {
    const user = `raw-${i % 200}`;
    const ev = await fetch(`${url}/v1/metrics/lessons/event`, { method: 'POST', headers, body: JSON.stringify({ user: { id: user }, value: 1 }) });
    const sent = (await ev.json()) as { points?: { xp?: { awards: { id: string }[] } } };
    const expected = sent.points?.xp?.awards[0]?.id;
    let t0 = performance.now();
    const read = (await (await fetch(`${url}/v1/users/${user}/points/xp`, { headers })).json()) as { awards?: { id: string }[] };
    fresh.push(performance.now() - t0);
    if (!expected || read.awards?.[0]?.id !== expected) stale++;
    t0 = performance.now();
    await (await fetch(`${url}/v1/users/user-${(i * 7919) % users}/points/xp`, { headers })).arrayBuffer();
    quiet.push(performance.now() - t0);
  }
  return {
    reads: fresh.length, stale, p50: pct(fresh, 0.5), p90: pct(fresh, 0.9), p99: pct(fresh, 0.99),
    quietP50: pct(quiet, 0.5), quietP90: pct(quiet, 0.9), quietP99: pct(quiet, 0.99),
  };
}
