import type { PoolClient } from 'pg';
import type { AchievementTrigger, AttributeFilter } from '../wire/admin';

// The achievements table: what unlocks each achievement (a metric, a streak,
// other achievements, or the API).

export interface AchievementRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  badge_url: string | null;
  status: 'active' | 'inactive';
  trigger: AchievementTrigger;
  metric_id: string | null;
  metric_value: string | null;
  streak_length: number | null;
  prerequisite_ids: string[];
  user_attributes: AttributeFilter[];
  event_attributes: AttributeFilter[];
}

export const ACHIEVEMENT_COLS =
  'id, key, name, description, badge_url, status, trigger, metric_id, metric_value::text AS metric_value, streak_length, prerequisite_ids, user_attributes, event_attributes';

/** What a write sets (only the fields of its trigger are not null). */
export interface AchievementFields {
  name: string;
  description: string | null;
  badgeUrl: string | null;
  status: AchievementRow['status'];
  trigger: AchievementTrigger;
  metricId: string | null;
  metricValue: number | null;
  streakLength: number | null;
  prerequisiteIds: string[];
  userAttributes: AttributeFilter[];
  eventAttributes: AttributeFilter[];
}

const values = (a: AchievementFields) => [
  a.name, a.description, a.badgeUrl, a.status, a.trigger, a.metricId, a.metricValue, a.streakLength, a.prerequisiteIds,
  JSON.stringify(a.userAttributes), JSON.stringify(a.eventAttributes),
];

export async function insertAchievement(
  c: PoolClient, tenantId: string, a: { id: string; slot: number; key: string }, f: AchievementFields, now: Date,
): Promise<AchievementRow> {
  const { rows } = await c.query<AchievementRow>(
    `INSERT INTO achievements (id, tenant_id, slot, key, name, description, badge_url, status, trigger, metric_id, metric_value,
       streak_length, prerequisite_ids, user_attributes, event_attributes, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16) RETURNING ${ACHIEVEMENT_COLS}`,
    [a.id, tenantId, a.slot, a.key, ...values(f), now],
  );
  return rows[0]!;
}

export async function updateAchievementRow(c: PoolClient, tenantId: string, id: string, f: AchievementFields, now: Date): Promise<AchievementRow> {
  const { rows } = await c.query<AchievementRow>(
    `UPDATE achievements SET name = $3, description = $4, badge_url = $5, status = $6, trigger = $7, metric_id = $8, metric_value = $9,
       streak_length = $10, prerequisite_ids = $11, user_attributes = $12, event_attributes = $13, updated = $14
     WHERE tenant_id = $1 AND id = $2 RETURNING ${ACHIEVEMENT_COLS}`,
    [tenantId, id, ...values(f), now],
  );
  return rows[0]!;
}

/** How many of `ids` (distinct) are the tenant's achievements. */
export async function countAchievements(c: PoolClient, tenantId: string, ids: string[]): Promise<number> {
  const { rowCount } = await c.query('SELECT id FROM achievements WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [tenantId, ids]);
  return rowCount ?? 0;
}

/** Whether any of `ids` requires `target`, directly or through other composites. */
export async function anyRequires(c: PoolClient, tenantId: string, ids: string[], target: string): Promise<boolean> {
  const { rows } = await c.query<{ found: boolean }>(
    `WITH RECURSIVE walk(id) AS (
       SELECT unnest($2::uuid[])
       UNION SELECT unnest(a.prerequisite_ids) FROM achievements a JOIN walk ON a.id = walk.id WHERE a.tenant_id = $1)
     SELECT EXISTS (SELECT 1 FROM walk WHERE id = $3) AS found`,
    [tenantId, ids, target],
  );
  return rows[0]!.found;
}

export async function achievementsOf(c: PoolClient, tenantId: string): Promise<AchievementRow[]> {
  return (await c.query<AchievementRow>(`SELECT ${ACHIEVEMENT_COLS} FROM achievements WHERE tenant_id = $1`, [tenantId])).rows;
}
