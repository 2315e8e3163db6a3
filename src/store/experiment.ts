import type { Pool, PoolClient } from 'pg';
import { MAX_WEEKS, UserActivity } from '../domain/experiment';
import { openUserDays } from './activity-record';
import { CONTROL_FIELD } from '../domain/user-hash';

/**
 * Per user, what the experiment figures need (domain/experiment.ts), from
 * rows (user_id, local_date, events): day 0 (the first date over the user's
 * whole history), whether active on days 1, 7 and 30, the days 0 to 29 active
 * (bit n: day n) and their events, and the weeks active counted from the
 * Monday of day 0 (bit k: week k, up to week 62). The one statement of the
 * rule: the stored summaries (rollup_users) and those of the users active on
 * an open day are both computed by it.
 */
const summaries = (rows: string) => `
  SELECT user_id, first,
         bool_or(local_date = first + 1) AS d1, bool_or(local_date = first + 7) AS d7, bool_or(local_date = first + 30) AS d30,
         bit_or(CASE WHEN local_date < first + 30 THEN 1 << (local_date - first) ELSE 0 END) AS days,
         coalesce(sum(events) FILTER (WHERE local_date < first + 30), 0)::int AS events,
         bit_or(CASE WHEN week < ${MAX_WEEKS} THEN 1::bigint << week ELSE 0 END) AS weeks
  FROM (SELECT user_id, local_date, events, first, (local_date - first + extract(isodow FROM first)::int - 1) / 7 AS week
        FROM (SELECT user_id, local_date, events, min(local_date) OVER (PARTITION BY user_id) AS first FROM (${rows}) r) m) w
  GROUP BY user_id, first`;

/**
 * Refresh the summaries of `users` from their rollup_user_days rows, inside
 * the transaction that just added rows for them. Serialized per tenant, so
 * each refresh sees the rows of any other span summed before it.
 */
export async function refreshUserSummaries(c: PoolClient, tenantId: string, users: string[]): Promise<void> {
  if (!users.length) return;
  await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-rollup-users:' || $1))`, [tenantId]);
  await c.query(
    `INSERT INTO rollup_users (tenant_id, user_id, first, d1, d7, d30, days, events, weeks)
     SELECT $1, s.* FROM (${summaries('SELECT user_id, local_date, events FROM rollup_user_days WHERE tenant_id = $1 AND user_id = ANY ($2::text[])')}) s
     ON CONFLICT (tenant_id, user_id) DO UPDATE SET first = excluded.first, d1 = excluded.d1, d7 = excluded.d7, d30 = excluded.d30,
       days = excluded.days, events = excluded.events, weeks = excluded.weeks`,
    [tenantId, users],
  );
}

/** A summary as read: the active weeks as a bit string (see summaries). */
type Row = Omit<UserActivity, 'weeks'> & { weeks: string };

/**
 * The users whose first active date is in [from, to]: the stored summaries,
 * except for the users active on a day still open (from `open.at`, the days
 * from `open.day` on), whose summaries are computed afresh from their stored
 * rows and the open days' events. The group is the `control` flag kept in
 * user_state; the zone and the split attribute come from the profile.
 */
export async function userActivity(
  db: Pool, tenantId: string, range: { from: string; to: string }, open: { day: string; at: Date }, attribute: string | null,
): Promise<UserActivity[]> {
  const { rows } = await db.query<Row>(
    `WITH open AS MATERIALIZED (${openUserDays(4)}),
     live AS (${summaries(`SELECT user_id, local_date, events FROM rollup_user_days
                           WHERE tenant_id = $1 AND day < $5::date AND user_id IN (SELECT user_id FROM open)
                           UNION ALL SELECT user_id, local_date, events FROM open`)}),
     p AS (
       SELECT user_id, first, d1, d7, d30, days, events, weeks FROM rollup_users r
       WHERE tenant_id = $1 AND first BETWEEN $2::date AND $3::date AND NOT EXISTS (SELECT 1 FROM open o WHERE o.user_id = r.user_id)
       UNION ALL
       SELECT user_id, first, d1, d7, d30, days, events, weeks FROM live WHERE first BETWEEN $2::date AND $3::date
     )
     SELECT to_char(p.first, 'YYYY-MM-DD') AS first, coalesce(user_state_field(s.state, s.recent, $7::text) = '1', false) AS control,
            coalesce(u.tz, 'UTC') AS zone, CASE WHEN $6::text IS NULL THEN NULL ELSE u.attributes ->> $6 END AS attr,
            p.d1, p.d7, p.d30, bit_count(p.days::bit(30))::int AS days, p.events, p.weeks::bit(${MAX_WEEKS})::text AS weeks
     FROM p
     LEFT JOIN users u ON u.tenant_id = $1 AND u.id = p.user_id
     LEFT JOIN user_state s ON s.tenant_id = $1 AND s.user_id = p.user_id`,
    [tenantId, range.from, range.to, open.at, open.day, attribute, CONTROL_FIELD],
  );
  return rows.map((r) => ({ ...r, weeks: bitsOf(r.weeks) }));
}

/** The positions of the bits set in a bit string (highest bit first), lowest first. */
function bitsOf(bits: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < bits.length; i++) if (bits.charCodeAt(bits.length - 1 - i) === 49 /* '1' */) out.push(i);
  return out;
}
