import type { Pool, PoolClient } from 'pg';

/**
 * The reads of the durable record (the events table and the awards view) that
 * the per-user and per-trigger figures need, and nothing else: the closed
 * days' sums the background job stores, the open days read live, and the
 * first day anything was recorded. Everything else reads the sums, so a
 * change of how events are stored is a change of this file alone.
 * Instants are UTC; `start` and `end` bound a run of whole UTC days.
 */

/**
 * Sum closed UTC days [start, end) into rollup_user_days and
 * rollup_trigger_points (a repeat writes nothing new). Returns the users
 * whose rows this call wrote.
 */
export async function sumActivity(c: PoolClient, tenantId: string, start: string, end: string): Promise<string[]> {
  const { rows } = await c.query<{ user_id: string }>(
    `WITH added AS (
       INSERT INTO rollup_user_days (tenant_id, user_id, local_date, day, events)
       SELECT $1, user_id, local_date, (occurred_at AT TIME ZONE 'UTC')::date, count(*) FROM events
       WHERE tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3 GROUP BY 2, 3, 4
       ON CONFLICT DO NOTHING RETURNING user_id)
     SELECT DISTINCT user_id FROM added`,
    [tenantId, start, end],
  );
  await c.query(
    `INSERT INTO rollup_trigger_points (tenant_id, day, system_id, trigger_id, issued, consumed)
     SELECT $1, (at AT TIME ZONE 'UTC')::date, system_id, trigger_id, coalesce(sum(awarded) FILTER (WHERE awarded > 0), 0),
            coalesce(-sum(awarded) FILTER (WHERE awarded < 0), 0)
     FROM awards WHERE tenant_id = $1 AND at >= $2 AND at < $3 GROUP BY 2, 3, 4
     ON CONFLICT DO NOTHING`,
    [tenantId, start, end],
  );
  return rows.map((r) => r.user_id);
}

/**
 * A subquery (user_id, local_date, events) over the events stamped from
 * instant `$<at>` on, the days not summed yet: the same columns as
 * rollup_user_days, so the two are read as one. `$1` is the tenant.
 */
export const openUserDays = (at: number) =>
  `SELECT user_id, local_date, count(*)::int AS events FROM events WHERE tenant_id = $1 AND occurred_at >= $${at} GROUP BY 1, 2`;

/** Points and awards per UTC day, system and trigger, from instant `at` to `end` (the open days). */
export async function openTriggerPoints(db: Pool, tenantId: string, at: Date, end: Date, systemId: string | null) {
  const { rows } = await db.query<{ date: string; systemId: string; triggerId: string; issued: number; consumed: number; awards: number }>(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, system_id AS "systemId", trigger_id AS "triggerId",
            coalesce(sum(awarded) FILTER (WHERE awarded > 0), 0)::float8 AS issued,
            coalesce(-sum(awarded) FILTER (WHERE awarded < 0), 0)::float8 AS consumed, count(*)::int AS awards
     FROM awards WHERE tenant_id = $1 AND at >= $2 AND at < $3 AND ($4::uuid IS NULL OR system_id = $4)
     GROUP BY 1, 2, 3`,
    [tenantId, at, end, systemId],
  );
  return rows;
}

/**
 * The UTC day of the tenant's oldest stored event (null: none): the per-user
 * sums must reach back to it to know first days. The flusher keeps it
 * (store/flush-marks.ts), since no index of events by tenant and time finds
 * it; an erasure or a dropped month leaves it as it was (those days are
 * summed already, or hold fewer rows now).
 */
export async function firstEventDay(db: Pool, tenantId: string): Promise<string | null> {
  const { rows } = await db.query<{ day: string | null }>(
    `SELECT to_char(first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM flush_marks WHERE tenant_id = $1`,
    [tenantId],
  );
  return rows[0]?.day ?? null;
}
