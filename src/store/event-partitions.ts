import type { Pool, PoolClient } from 'pg';
import { tx } from './db';

/*
 * The events table's time partitions: one per UTC month of occurred_at
 * (events_YYYYMM), made ahead of time and dropped whole once past the
 * retention window. A default partition (events_default) catches a row no
 * month was made for; making that month moves such rows into it.
 */

/** Months made ahead of the current one, so an insert never waits for one. */
const AHEAD_MONTHS = 2;

/** The month holding an instant, as months since 1970-01 (UTC). */
export const monthOf = (ms: number): number => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth() - 1970 * 12;
};
const monthStart = (m: number): Date => new Date(Date.UTC(1970 + Math.floor(m / 12), m % 12, 1));
const partitionName = (m: number): string => {
  const d = monthStart(m);
  return `events_${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};

/** Serialises partition changes of one schema (concurrent starts, the scheduler of several processes). */
async function lockPartitions(c: PoolClient): Promise<void> {
  await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-event-partitions:' || current_schema()))`);
}

/** The months that have a partition, oldest first. */
async function madeMonths(c: PoolClient): Promise<number[]> {
  const { rows } = await c.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_[0-9]{6}$'`,
  );
  return rows
    .map((r) => Number(r.name.slice(7, 11)) * 12 + Number(r.name.slice(11, 13)) - 1 - 1970 * 12)
    .sort((a, b) => a - b);
}

/**
 * Make month `m`'s partition. Rows the default partition holds for that
 * month move into it in the same transaction (Postgres refuses a partition
 * whose rows sit in the default one).
 */
async function makeMonth(c: PoolClient, m: number): Promise<void> {
  const from = monthStart(m).toISOString();
  const to = monthStart(m + 1).toISOString();
  const name = partitionName(m);
  const stray = await c.query('SELECT 1 FROM events_default WHERE occurred_at >= $1 AND occurred_at < $2 LIMIT 1', [from, to]);
  if (!stray.rows.length) {
    await c.query(`CREATE TABLE ${name} PARTITION OF events FOR VALUES FROM ('${from}') TO ('${to}')`);
    return;
  }
  await c.query('ALTER TABLE events DETACH PARTITION events_default');
  await c.query(`CREATE TABLE ${name} PARTITION OF events FOR VALUES FROM ('${from}') TO ('${to}')`);
  await c.query(`WITH moved AS (DELETE FROM events_default WHERE occurred_at >= $1 AND occurred_at < $2 RETURNING *) INSERT INTO ${name} SELECT * FROM moved`, [from, to]);
  await c.query('ALTER TABLE events ATTACH PARTITION events_default DEFAULT');
}

/**
 * Make the partitions of the month holding `now`, the one before (a record
 * stamped just before midnight may be flushed just after) and the next
 * AHEAD_MONTHS, and of any month whose rows wait in the default partition.
 * Months past the retention window are not made ahead. Returns the months made.
 */
export async function makePartitions(db: Pool, now: number, retentionDays: number | null): Promise<number[]> {
  return tx(db, async (c) => {
    await lockPartitions(c);
    const made = new Set(await madeMonths(c));
    const wanted = new Set<number>();
    for (let m = monthOf(now) - 1; m <= monthOf(now) + AHEAD_MONTHS; m++) wanted.add(m);
    const { rows } = await c.query<{ ms: string }>(
      `SELECT DISTINCT (extract(epoch FROM date_trunc('month', occurred_at AT TIME ZONE 'UTC')) * 1000)::bigint::text AS ms FROM events_default`,
    );
    const stray = new Set(rows.map((r) => monthOf(Number(r.ms))));
    // A month past the window is not made ahead again (but one holding stray rows is, for the drop to take them).
    const oldest = retentionDays === null ? -Infinity : firstKeptMonth(now, retentionDays);
    const out: number[] = [];
    for (const m of [...new Set([...wanted, ...stray])].sort((a, b) => a - b)) {
      if (made.has(m) || (m < oldest && !stray.has(m))) continue;
      await makeMonth(c, m);
      out.push(m);
    }
    return out;
  });
}

/** The first month with an instant inside the window: earlier months are wholly past it. */
function firstKeptMonth(now: number, retentionDays: number): number {
  return monthOf(now - retentionDays * 86_400_000);
}

/** Months wholly past the retention window (the partitions `dropExpired` would drop), oldest first. */
export async function expiredMonths(db: Pool, now: number, retentionDays: number): Promise<{ month: number; from: string; to: string }[]> {
  const c = await db.connect();
  try {
    const first = firstKeptMonth(now, retentionDays);
    return (await madeMonths(c)).filter((m) => m < first).map((m) => ({ month: m, from: monthStart(m).toISOString(), to: monthStart(m + 1).toISOString() }));
  } finally {
    c.release();
  }
}

/**
 * Drop one month's partition whole. Its users' daily sums per metric go to
 * event_days, and of the awards its events paid per points system to
 * points_days, in the same transaction, so the metric and points summaries
 * still answer for those days.
 */
export async function dropMonth(db: Pool, month: number): Promise<void> {
  const name = partitionName(month);
  await tx(db, async (c) => {
    await lockPartitions(c);
    const exists = await c.query(`SELECT 1 FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace`, [name]);
    if (!exists.rows.length) return;
    await c.query(
      `INSERT INTO event_days AS d (tenant_id, user_id, metric_id, local_date, events, value)
       SELECT tenant_id, user_id, metric_id, local_date, count(*), sum(value) FROM ${name} GROUP BY 1, 2, 3, 4
       ON CONFLICT (tenant_id, user_id, metric_id, local_date) DO UPDATE SET events = d.events + excluded.events, value = d.value + excluded.value`,
    );
    await c.query(
      `INSERT INTO points_days AS d (tenant_id, user_id, system_id, local_date, awarded)
       SELECT tenant_id, user_id, system_id, local_date, sum(awarded) FROM awards
       WHERE id IS NULL AND at >= $1 AND at < $2 GROUP BY 1, 2, 3, 4
       ON CONFLICT (tenant_id, user_id, system_id, local_date) DO UPDATE SET awarded = d.awarded + excluded.awarded`,
      // The awards kept in the month's events (the view's rows without a stored id).
      [monthStart(month), monthStart(month + 1)],
    );
    await c.query(`DROP TABLE ${name}`);
  });
}
