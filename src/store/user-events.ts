import type { Pool } from 'pg';

/** A metric event as stored; value and total are exact decimal strings. */
export interface StoredEvent {
  id: string;
  metricId: string;
  value: string;
  total: string;
  occurredAt: Date;
  localDate: string;
  attributes: Record<string, string> | null;
  idempotencyKey: string | null;
}

/** A user's `limit` latest events (of one metric, or all), newest first. */
export async function latestUserEvents(db: Pool, tenantId: string, userId: string, limit: number, metricId: string | null): Promise<StoredEvent[]> {
  const { rows } = await db.query<StoredEvent>(
    `SELECT id, metric_id AS "metricId", value, total, occurred_at AS "occurredAt", to_char(local_date, 'YYYY-MM-DD') AS "localDate", attributes,
            idempotency_key AS "idempotencyKey"
     FROM events WHERE tenant_id = $1 AND user_id = $2 AND ($4::uuid IS NULL OR metric_id = $4) ORDER BY occurred_at DESC, id LIMIT $3`,
    [tenantId, userId, limit, metricId],
  );
  return rows;
}
