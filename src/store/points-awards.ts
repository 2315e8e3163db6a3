import type { PointsTrigger } from '../wire/app';
import type { Pool } from 'pg';

/** An award as stored, with the trigger version that paid it (it outlives edits and deletion). */
export interface StoredAward {
  id: string;
  triggerId: string;
  /** The trigger as it was when it paid; null for awards from before versions were kept. */
  trigger: PointsTrigger | null;
  awarded: number;
  total: number;
  at: Date;
  localDate: string;
  boosts: string[];
}

/** A user's `n` newest awards in a points system, newest first. */
export async function recentAwards(db: Pool, tenantId: string, userId: string, systemId: string, n: number): Promise<StoredAward[]> {
  const { rows } = await db.query<StoredAward>({
    // A named statement, which Postgres plans once per connection rather than on every read.
    name: 'points-recent-awards',
    text: `SELECT a.id, a.trigger_id AS "triggerId", v.trigger, a.awarded::float8 AS awarded, a.total::float8 AS total, a.at,
                  to_char(a.local_date, 'YYYY-MM-DD') AS "localDate", a.boosts
           FROM points_awards a LEFT JOIN points_trigger_versions v ON v.id = a.trigger_version
           WHERE a.tenant_id = $1 AND a.user_id = $2 AND a.system_id = $3 ORDER BY a.seq DESC LIMIT $4`,
    values: [tenantId, userId, systemId, n],
  });
  return rows;
}

/**
 * Every user's total in a system (among users with all of `attrs`), from the
 * durable record: the total after their latest award, 0 for users never
 * awarded. (Fed by the flusher, so it trails the live totals by its lag.)
 */
export async function userTotals(db: Pool, tenantId: string, systemId: string, attrs: Record<string, string>): Promise<number[]> {
  const { rows } = await db.query<{ total: number }>(
    `SELECT coalesce(last.total, 0)::float8 AS total FROM users u
     LEFT JOIN LATERAL (SELECT total FROM points_awards a WHERE a.tenant_id = u.tenant_id AND a.user_id = u.id AND a.system_id = $2
                        ORDER BY seq DESC LIMIT 1) last ON true
     WHERE u.tenant_id = $1 AND u.attributes @> $3::jsonb`,
    [tenantId, systemId, JSON.stringify(attrs)],
  );
  return rows.map((r) => r.total);
}
