/**
 * Plain reads of user hash fields (no script: a read of one hash is atomic
 * on its own). The field names come from domain/user-hash.
 */
import type { RedisClient } from '../redis/client';
import type { TenantKeys } from '../redis/keys';
import { EMAIL_FIELD, isUser, NAME_FIELD, ZONE_FIELD } from '../domain/user-hash';

/** The user's stored zone: null when the user or the field is absent ('' when unknown). */
export const storedZone = (redis: RedisClient, tk: TenantKeys, userId: string): Promise<string | null> => redis.hget(tk.user(userId), ZONE_FIELD);

/** The user's email, null when absent. */
export const storedEmail = (redis: RedisClient, tk: TenantKeys, userId: string): Promise<string | null> => redis.hget(tk.user(userId), EMAIL_FIELD);

/** Every field of the user's hash, null when there is no such user (the hash has no created time). */
export async function userHash(redis: RedisClient, tk: TenantKeys, userId: string): Promise<Map<string, string> | null> {
  const fields = new Map(Object.entries(await redis.hgetall(tk.user(userId))));
  return isUser(fields) ? fields : null;
}

/**
 * The names of many users, in order, in one round trip: null where a user or
 * their name is absent (a name is decoration, so a failed read is one too).
 */
export async function userNames(redis: RedisClient, tk: TenantKeys, userIds: string[]): Promise<(string | null)[]> {
  if (userIds.length === 0) return [];
  const res = await redis.pipeline(userIds.map((id) => ['hget', tk.user(id), NAME_FIELD])).exec();
  return userIds.map((_, i) => {
    const v = res?.[i]?.[1];
    return typeof v === 'string' ? v : null;
  });
}
