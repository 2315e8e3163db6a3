import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
import type { Logger } from '../observability/log';

/** A standalone Redis or a Redis Cluster: the commands Laurel uses are the same on both. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: one server, or (cluster) any node of it to discover the rest from. */
export interface RedisTarget {
  redisUrl: string;
  redisCluster: boolean;
}

/**
 * Open a client of the right kind (not connected while `lazyConnect`). For a
 * cluster, `retryStrategy` becomes the cluster's reconnect strategy, the
 * other options apply to each node's connection, and `cluster` adds options
 * of the cluster client itself.
 */
export function openRedis(target: RedisTarget, options: RedisOptions = {}, cluster: ClusterOptions = {}): RedisClient {
  if (!target.redisCluster) return new Redis(target.redisUrl, options);
  const { retryStrategy, enableOfflineQueue, lazyConnect, ...nodeOptions } = options;
  const seed = new URL(target.redisUrl);
  return new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], {
    lazyConnect,
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    // Nodes found through the seed need its credentials too.
    redisOptions: { username: decodeURIComponent(seed.username) || undefined, password: decodeURIComponent(seed.password) || undefined, ...nodeOptions },
    ...cluster,
  });
}

/**
 * The masters of a cluster (each holds its own keys and Functions library),
 * or the one standalone Redis. Call it once the client is connected.
 */
export function masters(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/**
 * Call `fn` with every key matching a glob, a SCAN page at a time (never
 * KEYS), on every master. A page's keys all live on `node`, though in a
 * cluster they may belong to different slots: send them one key a command.
 */
export async function scanKeys(redis: RedisClient, pattern: string, fn: (keys: string[], node: Redis) => Promise<void>, count = 1000): Promise<void> {
  for (const node of masters(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length) await fn(keys, node);
    } while (cursor !== '0');
  }
}

/**
 * A Redis connection tuned for the request path: commands fail fast while
 * disconnected (the API answers 503) instead of queueing, and a command whose
 * reply was lost is never resent behind our back (scripts are not all
 * idempotent by themselves).
 */
export function createRedis(target: RedisTarget, log: Logger, name: string): RedisClient {
  const r = openRedis(
    target,
    {
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      connectionName: name,
      retryStrategy: (times) => Math.min(50 * times, 1000),
    },
    // By default a cluster client resends a command cut off by a lost
    // connection and retries through CLUSTERDOWN: neither, for the same
    // reasons. MOVED/ASK/TRYAGAIN redirects stay (the command did not run).
    { retryDelayOnFailover: 0, retryDelayOnClusterDown: 0 },
  );
  let down = false;
  r.on('error', (err: Error) => {
    if (!down) log.warn('redis connection error', { name, err: err.message });
    down = true;
  });
  r.on('ready', () => {
    if (down) log.info('redis connection restored', { name });
    down = false;
  });
  return r;
}

/** A connection for SUBSCRIBE: it may queue, and resubscribes after reconnecting. */
export function createSubscriber(target: RedisTarget, log: Logger): RedisClient {
  const r = openRedis(target, { lazyConnect: true, connectionName: 'laurel-sub', retryStrategy: (t) => Math.min(50 * t, 1000) });
  r.on('error', (err: Error) => log.debug('redis subscriber error', { err: err.message }));
  return r;
}

/** Whether Redis answers a PING now. */
export const reachable = (redis: RedisClient): Promise<boolean> => redis.ping().then(() => true, () => false);
