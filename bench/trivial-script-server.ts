import uWS from 'uWebSockets.js';
import Redis from 'ioredis';
import { readBody } from './uws-body';

/**
 * The second baseline: bare uWebSockets.js that parses the body and makes one
 * trivial script call to Redis before answering. Laurel's event path is this
 * plus its actual work, so the ratio to it is what Laurel's logic costs.
 */
const port = Number(process.env.PORT ?? 0);
const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
redis.defineCommand('trivial', { numberOfKeys: 1, lua: "return redis.call('EXISTS', KEYS[1])" });
const call = (redis as unknown as { trivial: (k: string) => Promise<number> }).trivial.bind(redis);

uWS
  .App()
  .any('/*', (res) =>
    readBody(res, (raw, aborted) => {
      const body = raw ? (JSON.parse(raw) as { user?: { id: string } }) : {};
      call(`bench:trivial:${body.user?.id ?? ''}`).then((n) => {
        if (aborted()) return;
        res.cork(() => res.writeStatus('201 Created').writeHeader('Content-Type', 'application/json').end(JSON.stringify({ n })));
      });
    }),
  )
  .listen('127.0.0.1', port, (sock) => {
    if (!sock) process.exit(1);
    process.stdout.write(`${uWS.us_socket_local_port(sock)}\n`);
  });
