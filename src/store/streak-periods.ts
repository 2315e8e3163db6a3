import type { Pool } from 'pg';

/** A user and a streak length, from the recorded periods of one frequency (FREQ_CODE). */
export interface UserLength {
  userId: string;
  length: number;
}

/**
 * Each user's latest recorded length (an upper bound of their streak now),
 * longest first, ties by user id; users whose latest length is 0 left out.
 */
export async function latestLengths(db: Pool, tenantId: string, frequency: string): Promise<UserLength[]> {
  const { rows } = await db.query<UserLength>(
    `SELECT user_id AS "userId", length FROM (SELECT DISTINCT ON (user_id) user_id, length FROM streak_periods
       WHERE tenant_id = $1 AND frequency = $2 ORDER BY user_id, period DESC) latest
     WHERE length > 0 ORDER BY length DESC, user_id`,
    [tenantId, frequency],
  );
  return rows;
}

/** The `limit` users with the longest streak they ever reached, longest first, ties by user id. */
export async function longestLengths(db: Pool, tenantId: string, frequency: string, limit: number): Promise<UserLength[]> {
  const { rows } = await db.query<UserLength>(
    `SELECT user_id AS "userId", max(length) AS length FROM streak_periods WHERE tenant_id = $1 AND frequency = $2
     GROUP BY user_id HAVING max(length) > 0 ORDER BY length DESC, user_id LIMIT $3`,
    [tenantId, frequency, limit],
  );
  return rows;
}

/** One recorded period of a user's streak. */
export interface PeriodRecord {
  period: number;
  length: number;
  usedFreeze: boolean;
  usedPause: boolean;
}

/** Every recorded period of a user's streak in one frequency, earliest first. */
export async function userPeriods(db: Pool, tenantId: string, userId: string, frequency: string): Promise<PeriodRecord[]> {
  const { rows } = await db.query<PeriodRecord>(
    'SELECT period, length, used_freeze AS "usedFreeze", used_pause AS "usedPause" FROM streak_periods WHERE tenant_id = $1 AND user_id = $2 AND frequency = $3 ORDER BY period',
    [tenantId, userId, frequency],
  );
  return rows;
}
