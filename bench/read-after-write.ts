/**
 * Read your writes under load: one client sends an event, then at once reads
 * the user's recent awards (served from Postgres), again and again, while the
 * bench's event load runs beside it. A read is stale when its newest award is
 * not the one the event just answered with. Also the same read for users
 * with nothing unflushed (the usual case), for comparison.
 */
export interface ReadAfterWrite {
  reads: number;
  stale: number;
  p50: number;
  p99: number;
  /** The same read of users the loop did not just write (already consistent). */
  quietP50: number;
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
    const read = (await (await fetch(`${url}/v1/users/${user}/points/xp?awards=1`, { headers })).json()) as { awards?: { id: string }[] };
    fresh.push(performance.now() - t0);
    if (!expected || read.awards?.[0]?.id !== expected) stale++;
    t0 = performance.now();
    await (await fetch(`${url}/v1/users/user-${(i * 7919) % users}/points/xp?awards=1`, { headers })).arrayBuffer();
    quiet.push(performance.now() - t0);
  }
  return { reads: fresh.length, stale, p50: pct(fresh, 0.5), p99: pct(fresh, 0.99), quietP50: pct(quiet, 0.5), quietP99: pct(quiet, 0.99) };
}
