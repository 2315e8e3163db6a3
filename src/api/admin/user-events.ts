import { Ctx, identifyAdmin } from '../../context';
import { intParam } from '../../http/body';
import { reply, Route } from '../../http/server';
import type { AdminUserEvent } from '../../wire/admin';

interface Row {
  id: string;
  metric_id: string;
  value: string;
  total: string;
  occurred_at: Date;
  local_date: string;
  attributes: Record<string, string> | null;
  idempotency_key: string | null;
}

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
        const { rows } = await ctx.db.query<Row>(
          `SELECT id, metric_id, value, total, occurred_at, to_char(local_date, 'YYYY-MM-DD') AS local_date, attributes, idempotency_key
           FROM events WHERE tenant_id = $1 AND user_id = $2 ORDER BY occurred_at DESC, id LIMIT $3`,
          [tenant.id, req.params[0]!, limit],
        );
        const out: AdminUserEvent[] = rows.map((r) => ({
          id: r.id,
          metricId: r.metric_id,
          value: Number(r.value),
          total: Number(r.total),
          occurredAt: r.occurred_at.toISOString(),
          localDate: r.local_date,
          attributes: r.attributes ?? {},
          idempotencyKey: r.idempotency_key,
        }));
        return reply(200, out);
      },
    },
  ];
}
