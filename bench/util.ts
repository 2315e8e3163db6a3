import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import type { Pool } from 'pg';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** CPU time (µs) a process has used so far, from /proc (NaN without it, or once it is gone). */
export function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100); // utime + stime, in USER_HZ ticks
  } catch {
    return NaN;
  }
}

/**
 * CPU time (µs) of the database's processes so far: every backend and
 * background process pg_stat_activity lists (NaN without /proc). Connections
 * stay open through a measurement, so the difference of two readings is what
 * happened in between.
 */
export async function postgresCpu(db: Pool): Promise<number> {
  if (!existsSync('/proc/self/stat')) return NaN;
  const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity');
  let us = 0;
  for (const { pid } of rows) us += processCpu(pid) || 0; // a backend gone meanwhile
  return us;
}
