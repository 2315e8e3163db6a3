import type { Ctx } from '../context';
import { reply, Route } from '../http/server';
import type { Flusher } from '../store/flusher';

/** Liveness and readiness (with the flusher's lag); no key needed. */
export function healthRoutes(ctx: Ctx, flusher: Flusher): Route[] {
  return [
    { method: 'get', pattern: '/healthz', handler: () => reply(200, { status: 'ok' }) },
    {
      method: 'get',
      pattern: '/readyz',
      handler: async () => {
        const [redis, postgres] = await Promise.all([
          ctx.redis.ping().then(() => true, () => false),
          ctx.db.query('SELECT 1').then(() => true, () => false),
        ]);
        const lag = redis ? await flusher.lag().catch(() => null) : null;
        const ok = redis && postgres;
        return reply(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', redis, postgres, flusherLag: lag }, ok ? undefined : { 'Retry-After': '1' });
      },
    },
  ];
}
