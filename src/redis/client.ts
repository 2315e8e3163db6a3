import Redis from 'ioredis';
import type { Logger } from '../log';

/**
 * A Redis connection tuned for the request path: commands fail fast while
 * disconnected (the API answers 503) instead of queueing, and a command whose
 * reply was lost is never resent behind our back (scripts are not all
 * idempotent by themselves).
 */
export function createRedis(url: string, log: Logger, name: string): Redis {
  const r = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    connectionName: name,
    retryStrategy: (times) => Math.min(50 * times, 1000),
  });
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
export function createSubscriber(url: string, log: Logger): Redis {
  const r = new Redis(url, { lazyConnect: true, connectionName: 'laurel-sub', retryStrategy: (t) => Math.min(50 * t, 1000) });
  r.on('error', (err: Error) => log.debug('redis subscriber error', { err: err.message }));
  return r;
}
