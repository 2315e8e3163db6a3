import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { attributeFilterProblem, getRow, Resource, Scope } from '../resource';
import type { AchievementTrigger as Trigger, AttributeFilter, CreateAchievement, PatchAchievement } from '../../../wire/admin';

export interface AchievementRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  badge_url: string | null;
  status: 'active' | 'inactive';
  trigger: Trigger;
  metric_id: string | null;
  metric_value: string | null;
  streak_length: number | null;
  prerequisite_ids: string[];
  user_attributes: AttributeFilter[];
  event_attributes: AttributeFilter[];
}

export const ACHIEVEMENTS: Resource<AchievementRow> = {
  path: '/admin/v1/achievements',
  table: 'achievements',
  cols: 'id, key, name, description, badge_url, status, trigger, metric_id, metric_value::text AS metric_value, streak_length, prerequisite_ids, user_attributes, event_attributes',
  order: 'slot',
  noun: 'Achievement',
  json: (r) => {
    const out: Record<string, unknown> = {
      id: r.id, key: r.key, name: r.name, description: r.description, badge: r.badge_url ? { url: r.badge_url } : null,
      status: r.status, trigger: r.trigger, userAttributes: r.user_attributes,
    };
    if (r.trigger === 'metric') Object.assign(out, { metricId: r.metric_id, metricValue: Number(r.metric_value), eventAttributes: r.event_attributes });
    if (r.trigger === 'streak') out.streakLength = r.streak_length;
    if (r.trigger === 'achievement') out.prerequisiteIds = r.prerequisite_ids;
    return out;
  },
};

async function writeAchievement(ctx: Ctx, c: PoolClient, s: Scope, a: CreateAchievement, id: string | null): Promise<AchievementRow | string> {
  const problem = await achievementProblem(c, s, a, id);
  if (problem) return problem;
  const values = [
    a.name, a.description ?? null, a.badge?.url ?? null, a.status ?? 'inactive', a.trigger,
    a.trigger === 'metric' ? a.metricId : null, a.trigger === 'metric' ? a.metricValue : null,
    a.trigger === 'streak' ? a.streakLength : null, a.trigger === 'achievement' ? a.prerequisiteIds!.map((x) => x.toLowerCase()) : [],
    JSON.stringify(a.userAttributes ?? []), JSON.stringify(a.trigger === 'metric' ? (a.eventAttributes ?? []) : []), new Date(ctx.clock.now()),
  ];
  const { rows } = id
    ? await c.query<AchievementRow>(
        `UPDATE achievements SET name = $3, description = $4, badge_url = $5, status = $6, trigger = $7, metric_id = $8, metric_value = $9,
           streak_length = $10, prerequisite_ids = $11, user_attributes = $12, event_attributes = $13, updated = $14
         WHERE tenant_id = $1 AND id = $2 RETURNING ${ACHIEVEMENTS.cols}`,
        [s.tenant.id, id, ...values],
      )
    : await c.query<AchievementRow>(
        `INSERT INTO achievements (id, tenant_id, slot, key, name, description, badge_url, status, trigger, metric_id, metric_value,
           streak_length, prerequisite_ids, user_attributes, event_attributes, created, updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16) RETURNING ${ACHIEVEMENTS.cols}`,
        [randomUUID(), s.tenant.id, await nextSlot(c, s.tenant.id), a.key, ...values],
      );
  return rows[0]!;
}

export async function createAchievement(ctx: Ctx, c: PoolClient, s: Scope, item: CreateAchievement): Promise<AchievementRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await c.query('SELECT 1 FROM achievements WHERE tenant_id = $1 AND key = $2', [s.tenant.id, item.key])).rowCount) {
    return 'Key already in use by another achievement';
  }
  return writeAchievement(ctx, c, s, item, null);
}

export async function updateAchievement(ctx: Ctx, c: PoolClient, s: Scope, item: PatchAchievement): Promise<AchievementRow | string> {
  const id = item.id.toLowerCase();
  const row = await getRow(c, ACHIEVEMENTS, s, id);
  if (!row) return 'Achievement not found';
  const merged: CreateAchievement = {
    key: row.key,
    name: item.name ?? row.name,
    description: item.description !== undefined ? item.description : row.description,
    badge: item.badge !== undefined ? item.badge : row.badge_url ? { url: row.badge_url } : null,
    status: item.status ?? row.status,
    trigger: item.trigger ?? row.trigger,
    metricId: item.metricId ?? row.metric_id ?? undefined,
    metricValue: item.metricValue ?? (row.metric_value !== null ? Number(row.metric_value) : undefined),
    streakLength: item.streakLength ?? row.streak_length ?? undefined,
    prerequisiteIds: item.prerequisiteIds ?? (row.prerequisite_ids.length ? row.prerequisite_ids : undefined),
    userAttributes: item.userAttributes !== undefined ? item.userAttributes : row.user_attributes,
    eventAttributes: item.eventAttributes !== undefined ? item.eventAttributes : row.event_attributes,
  };
  return writeAchievement(ctx, c, s, merged, id);
}

async function achievementProblem(c: PoolClient, s: Scope, a: CreateAchievement, selfId: string | null): Promise<string | null> {
  switch (a.trigger) {
    case 'metric': {
      if (!a.metricId || a.metricValue === undefined) return 'metric achievements need metricId and metricValue';
      if (!(await c.query('SELECT 1 FROM metrics WHERE tenant_id = $1 AND id = $2', [s.tenant.id, a.metricId])).rowCount) return 'Metric not found';
      break;
    }
    case 'streak':
      if (!a.streakLength) return 'streak achievements need streakLength';
      break;
    case 'achievement': {
      if (!a.prerequisiteIds?.length) return 'composite achievements need prerequisiteIds';
      const ids = [...new Set(a.prerequisiteIds.map((x) => x.toLowerCase()))];
      if (selfId && ids.includes(selfId)) return 'An achievement cannot be its own prerequisite';
      const { rows } = await c.query<{ id: string }>('SELECT id FROM achievements WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [s.tenant.id, ids]);
      if (rows.length !== ids.length) return 'Unknown prerequisite achievement';
      if (selfId && (await dependsOn(c, s.tenant.id, ids, selfId))) return 'Prerequisites would form a cycle';
      break;
    }
    case 'api':
      break;
  }
  if (a.trigger !== 'metric' && a.eventAttributes?.length) return 'eventAttributes are only allowed on metric achievements';
  return (await attributeFilterProblem(c, s, a.userAttributes, 'user')) ?? (await attributeFilterProblem(c, s, a.eventAttributes, 'event'));
}

/** Whether any of `ids` requires `target`, directly or through other composites. */
async function dependsOn(c: PoolClient, tenantId: string, ids: string[], target: string): Promise<boolean> {
  const { rows } = await c.query<{ found: boolean }>(
    `WITH RECURSIVE walk(id) AS (
       SELECT unnest($2::uuid[])
       UNION SELECT unnest(a.prerequisite_ids) FROM achievements a JOIN walk ON a.id = walk.id WHERE a.tenant_id = $1)
     SELECT EXISTS (SELECT 1 FROM walk WHERE id = $3) AS found`,
    [tenantId, ids, target],
  );
  return rows[0]!.found;
}
