import type { RedisClient } from '../redis/client';

/**
 * A user's place in a live board set (plain reads: no script needed): rank
 * from 1, and the raw score (domain/leaderboards scoreValue decodes it);
 * nulls when the user is not on it.
 */
export async function boardPosition(redis: RedisClient, boardKey: string, userId: string): Promise<{ rank: number | null; score: string | null }> {
  const [r, score] = await Promise.all([redis.zrevrank(boardKey, userId), redis.zscore(boardKey, userId)]);
  return { rank: r === null ? null : r + 1, score };
}
