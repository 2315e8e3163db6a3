import { Ctx, identifyAdmin } from '../../context';
import { intParam } from '../../http/body';
import { reply, Route } from '../../http/server';
import type { AdminUserEvent } from '../../wire/admin';
import { latestUserEvents } from '../../store/user-events';

/**
 * `GET /admin/v1/users/:id/events?limit=`: a user's latest events, newest
 * first, from Postgres (the console's user page). Unknown users have none.
 */
export function userEventsRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/users/:id/events',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const limit = intParam(req.query, 'limit', 20, 1, 100);
        // Read your writes: Postgres first gets what is acknowledged and not yet flushed.
        await ctx.durable.all(tenant);
        const rows = await latestUserEvents(ctx.db, tenant.id, req.params[0]!, limit);
        const out: AdminUserEvent[] = rows.map((r) => ({
          id: r.id,
          metricId: r.metricId,
          value: Number(r.value),
          total: Number(r.total),
          occurredAt: r.occurredAt.toISOString(),
          localDate: r.localDate,
          attributes: r.attributes ?? {},
          idempotencyKey: r.idempotencyKey,
        }));
        return reply(200, out);
      },
    },
  ];
}
