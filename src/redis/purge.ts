import { RedisClient, scanKeys } from './client';

/** Delete every key matching a glob, on every master, in SCAN pages (never KEYS). Returns how many. */
export async function purgeKeys(redis: RedisClient, pattern: string): Promise<number> {
  let n = 0;
  await scanKeys(redis, pattern, async (keys, node) => {
    // One key a command: a page of a cluster node spans slots, and a multi-key UNLINK may not.
    const done = await node.pipeline(keys.map((k) => ['unlink', k])).exec();
    for (const [err, v] of done ?? []) {
      if (err) throw err;
      n += Number(v);
    }
  });
  return n;
}
