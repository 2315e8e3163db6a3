import type { Ctx } from '../context';
import typia from 'typia';
import { answer, ok, route } from './define';
import type { Flusher } from '../pipeline/flusher';
import type { DeadLetters } from '../pipeline/dead-letters';
import type { Health, Readiness } from '../wire/app';
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
export function healthRoutes(ctx: Ctx, flusher: Flusher, deadLetters: DeadLetters) {
  const readiness = typia.json.schema<Readiness>();
  return [
    route({
      method: 'get', path: '/healthz', operationId: 'health', tag: 'Service', auth: 'none',
      summary: 'Liveness: the process answers',
      responses: { 200: { description: 'Alive', schema: typia.json.schema<Health>() } },
      handler: async () => ok({ status: 'ok' as const }),
    }),
    route({
      method: 'get', path: '/readyz', operationId: 'readiness', tag: 'Service', auth: 'none',
      summary: 'Readiness: Redis and Postgres answer; with the flusher lag and dead letters',
      responses: {
        200: { description: 'Ready', schema: readiness },
        503: { description: 'Not ready (see which store is down)', schema: readiness },
      },
      handler: async () => {
        const [redis, dead] = await Promise.all([
          reachable(ctx.redis),
          deadLetters.count().catch(() => null),
        ]);
        const postgres = dead !== null;
        const lag = redis ? await flusher.lag().catch(() => null) : null;
        const ready = redis && postgres;
        const body: Readiness = {
          status: ready ? 'ok' : 'unavailable', redis, postgres, flusherLag: lag,
          flusher: dead === null ? null : dead > 0 ? 'degraded' : 'ok', deadLetters: dead,
        };
        return ready ? answer(200, body) : answer(503, body, { 'Retry-After': '1' });
      },
    }),
  ];
}
