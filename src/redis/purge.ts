import type Redis from 'ioredis';

/** Delete every key matching a glob, in SCAN pages (never KEYS). Returns how many. */
export async function purgeKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) n += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return n;
}
