import type { Pool } from 'pg';
import type { UserActivity } from '../domain/experiment';
import { openUserDays } from './activity-record';

/**
 * One summary per user whose first active local date is in [from, to] (see
 * domain/experiment.ts): the closed days from rollup_user_days, the days from
 * `openDay` on read live (activity-record.ts), added up in one statement.
 * Day 0 is the user's first date over all their history, not just the range.
 * The group is the `control` flag kept in user_state; the zone and the split
 * attribute come from the user's profile.
 */
export async function userActivity(
  db: Pool, tenantId: string, range: { from: string; to: string }, open: { day: string; at: Date }, attribute: string | null,
): Promise<UserActivity[]> {
  const { rows } = await db.query<UserActivity>(
    `WITH days AS (
       SELECT user_id, local_date, sum(events)::int AS events FROM (
         SELECT user_id, local_date, events FROM rollup_user_days WHERE tenant_id = $1 AND day < $4::date
         UNION ALL ${openUserDays(5)}
       ) x GROUP BY 1, 2
     ), firsts AS (
       SELECT user_id, min(local_date) AS first FROM days GROUP BY 1 HAVING min(local_date) BETWEEN $2::date AND $3::date
     ), per_user AS (
       SELECT f.user_id, f.first,
              bool_or(d.local_date = f.first + 1) AS d1, bool_or(d.local_date = f.first + 7) AS d7, bool_or(d.local_date = f.first + 30) AS d30,
              count(*) FILTER (WHERE d.local_date < f.first + 30)::int AS days,
              coalesce(sum(d.events) FILTER (WHERE d.local_date < f.first + 30), 0)::int AS events,
              array_agg(DISTINCT (d.local_date - f.first + extract(isodow FROM f.first)::int - 1) / 7) AS weeks
       FROM firsts f JOIN days d USING (user_id)
       GROUP BY f.user_id, f.first
     )
     SELECT to_char(p.first, 'YYYY-MM-DD') AS first, coalesce(s.fields -> 'cg' ->> 0 = '1', false) AS control,
            coalesce(u.tz, 'UTC') AS zone, CASE WHEN $6::text IS NULL THEN NULL ELSE u.attributes ->> $6 END AS attr,
            p.d1, p.d7, p.d30, p.days, p.events, p.weeks
     FROM per_user p
     LEFT JOIN users u ON u.tenant_id = $1 AND u.id = p.user_id
     LEFT JOIN user_state s ON s.tenant_id = $1 AND s.user_id = p.user_id`,
    [tenantId, range.from, range.to, open.day, open.at, attribute],
  );
  return rows;
}
