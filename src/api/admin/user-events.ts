import typia from 'typia';
import type { Ctx } from '../../context';
import { io, ok, route } from '../define';
import type { AdminUserEvent, UserEventsQuery } from '../../wire/admin';
import { latestUserEvents } from '../../store/user-events';

/**
 * `GET /admin/v1/users/:id/events?limit=&metricId=`: a user's latest events, newest
 * first, from Postgres (the console's user page). Unknown users have none.
 */
export function userEventsRoutes(ctx: Ctx) {
  return [
    route({
      method: 'get', path: '/admin/v1/users/:id/events', operationId: 'admin_user_events_list', tag: 'Admin: users', auth: 'admin',
      summary: "A user's latest events, newest first",
      description: 'Read from Postgres once it holds every acknowledged event.',
      query: io(typia.http.createValidateQuery<UserEventsQuery>(), typia.json.schema<UserEventsQuery>()),
      responses: { 200: { description: 'The events (none for an unknown user)', schema: typia.json.schema<AdminUserEvent[]>() } },
      handler: async ({ tenant, params, query }) => {
        // Read your writes: Postgres first gets what is acknowledged and not yet flushed.
        await ctx.durable.all(tenant);
        const rows = await latestUserEvents(ctx.db, tenant.id, params.id, query.limit ?? 20, query.metricId ?? null);
        return ok(rows.map((r): AdminUserEvent => ({
          id: r.id,
          metricId: r.metricId,
          value: Number(r.value),
          total: Number(r.total),
          occurredAt: r.occurredAt.toISOString(),
          localDate: r.localDate,
          attributes: r.attributes ?? {},
          idempotencyKey: r.idempotencyKey,
        })));
      },
    }),
  ];
}
