import type { RedisClient } from '../redis/client';
import type { TenantKeys } from '../redis/keys';
import { completionsField, USERS_STAT } from '../domain/achievements';

/** The tenant's user count and completions of each achievement (by slot, in order), in one read. */
export async function achievementStats(redis: RedisClient, tk: TenantKeys, slots: number[]): Promise<{ users: number; completions: number[] }> {
  const values = await redis.hmget(tk.stats, USERS_STAT, ...slots.map(completionsField));
  return { users: Number(values[0] ?? 0), completions: slots.map((_, i) => Number(values[i + 1] ?? 0)) };
}
