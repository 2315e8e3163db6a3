import type { Ctx } from '../context';
import { reply, Route } from '../http/server';

/** Liveness and readiness; no key needed. */
export function healthRoutes(ctx: Ctx): Route[] {
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
        const ok = redis && postgres;
        return reply(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', redis, postgres }, ok ? undefined : { 'Retry-After': '1' });
      },
    },
  ];
}
