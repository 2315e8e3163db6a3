import type { Ctx } from '../context';
import { reply, Route } from '../http/server';
import type { Flusher } from '../pipeline/flusher';
import type { DeadLetters } from '../pipeline/dead-letters';
import type { Readiness } from '../wire/app';
import { reachable } from '../redis/client';

/**
 * Liveness and readiness (with the flusher's lag and dead letters); no key
 * needed. Dead letters make the flusher `degraded` but keep the answer 200:
 * the flusher has already set them aside and goes on writing everything
 * else, and every process would answer the same (the table is shared), so
 * a 503 would take the whole deployment out of its load balancer for records
 * that need an operator, not a restart. Alert on `deadLetters` (or the
 * metric) instead.
 */
export function healthRoutes(ctx: Ctx, flusher: Flusher, deadLetters: DeadLetters): Route[] {
  return [
    { method: 'get', pattern: '/healthz', handler: () => reply(200, { status: 'ok' }) },
    {
      method: 'get',
      pattern: '/readyz',
      handler: async () => {
        const [redis, dead] = await Promise.all([
          reachable(ctx.redis),
          deadLetters.count().catch(() => null),
        ]);
        const postgres = dead !== null;
        const lag = redis ? await flusher.lag().catch(() => null) : null;
        const ok = redis && postgres;
        return reply(
          ok ? 200 : 503,
          {
            status: ok ? 'ok' : 'unavailable', redis, postgres, flusherLag: lag,
            flusher: dead === null ? null : dead > 0 ? 'degraded' : 'ok', deadLetters: dead,
          } satisfies Readiness,
          ok ? undefined : { 'Retry-After': '1' },
        );
      },
    },
  ];
}
