import type { PointsTrigger } from '../wire/app';
import type { Pool } from 'pg';
import { awardId } from '../domain/points';
import { pointsField } from '../domain/user-hash';

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
  const { rows } = await db.query<StoredAward & { eventId: string | null; idx: number | null }>({
    // A named statement, which Postgres plans once per connection rather than on every read.
    name: 'points-recent-awards',
    text: `SELECT a.id, a.event_id AS "eventId", a.idx, a.trigger_id AS "triggerId", v.trigger, a.awarded::float8 AS awarded, a.total::float8 AS total, a.at,
                  to_char(a.local_date, 'YYYY-MM-DD') AS "localDate", a.boosts
           FROM awards a LEFT JOIN points_trigger_versions v ON v.id = a.trigger_version
           WHERE a.tenant_id = $1 AND a.user_id = $2 AND a.system_id = $3 ORDER BY ${awardOrder('DESC')} LIMIT $4`,
    values: [tenantId, userId, systemId, n],
  });
  return rows.map(({ eventId, idx, ...a }) => ({ ...a, id: storedAwardId(a.id, eventId, a.triggerId, idx) }));
}

/**
 * The order awards were made in, across the `awards` view's two sources
 * (migrations/031): the change record's stream version, then the place
 * within its operation; rows from before versions were kept come first,
 * in their insertion order.
 */
export const awardOrder = (dir: 'ASC' | 'DESC', alias = 'a') =>
  `${alias}.ver ${dir} NULLS ${dir === 'ASC' ? 'FIRST' : 'LAST'}, ${alias}.place ${dir}`;

/** An award's id: stored with the awards of other operations, derived for an event's (see awardId). */
export const storedAwardId = (id: string | null, eventId: string | null, triggerId: string, idx: number | null) => id ?? awardId(eventId!, triggerId, idx!);

/**
 * Every user's total in a system (among users with all of `attrs`), from the
 * durable record: the total in their stored state, 0 for users never
 * awarded. (Fed by the flusher, so it trails the live totals by its lag.)
 */
export async function userTotals(db: Pool, tenantId: string, systemSlot: number, attrs: Record<string, string>): Promise<number[]> {
  const { rows } = await db.query<{ total: number }>(
    `SELECT coalesce(user_state_field(s.state, s.recent, $2)::float8, 0) AS total FROM users u
     LEFT JOIN user_state s ON s.tenant_id = u.tenant_id AND s.user_id = u.id
     WHERE u.tenant_id = $1 AND u.attributes @> $3::jsonb`,
    [tenantId, pointsField(systemSlot), JSON.stringify(attrs)],
  );
  return rows.map((r) => r.total);
}
