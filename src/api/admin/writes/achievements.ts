import type { AdminAchievement } from '../../../wire/admin';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { idOfKey } from '../../../store/config-keys';
import { countMetrics } from '../../../store/metrics';
import {
  ACHIEVEMENT_COLS, AchievementFields, AchievementRow, anyRequires, countAchievements, insertAchievement, updateAchievementRow,
} from '../../../store/achievements';
import { attributeFilterProblem, getRow, Resource, Scope } from '../resource';
import type { CreateAchievement, PatchAchievement } from '../../../wire/admin';

export const ACHIEVEMENTS: Resource<AchievementRow, AdminAchievement> = {
  path: '/admin/v1/achievements',
  table: 'achievements',
  cols: ACHIEVEMENT_COLS,
  order: 'slot',
  noun: 'Achievement',
  json: (r) => ({
    id: r.id, key: r.key, name: r.name, description: r.description, badge: r.badge_url ? { url: r.badge_url } : null,
    status: r.status, trigger: r.trigger, userAttributes: r.user_attributes,
    ...(r.trigger === 'metric' ? { metricId: r.metric_id!, metricValue: Number(r.metric_value), eventAttributes: r.event_attributes } : {}),
    ...(r.trigger === 'streak' ? { streakLength: r.streak_length! } : {}),
    ...(r.trigger === 'achievement' ? { prerequisiteIds: r.prerequisite_ids } : {}),
  }),
};

async function writeAchievement(ctx: Ctx, c: PoolClient, s: Scope, a: CreateAchievement, id: string | null): Promise<AchievementRow | string> {
  const problem = await achievementProblem(c, s, a, id);
  if (problem) return problem;
  const f: AchievementFields = {
    name: a.name, description: a.description ?? null, badgeUrl: a.badge?.url ?? null, status: a.status ?? 'inactive', trigger: a.trigger,
    metricId: a.trigger === 'metric' ? a.metricId! : null, metricValue: a.trigger === 'metric' ? a.metricValue! : null,
    streakLength: a.trigger === 'streak' ? a.streakLength! : null, prerequisiteIds: a.trigger === 'achievement' ? a.prerequisiteIds!.map((x) => x.toLowerCase()) : [],
    userAttributes: a.userAttributes ?? [], eventAttributes: a.trigger === 'metric' ? (a.eventAttributes ?? []) : [],
  };
  const now = new Date(ctx.clock.now());
  return id
    ? updateAchievementRow(c, s.tenant.id, id, f, now)
    : insertAchievement(c, s.tenant.id, { id: randomUUID(), slot: await nextSlot(c, s.tenant.id), key: a.key }, f, now);
}

export async function createAchievement(ctx: Ctx, c: PoolClient, s: Scope, item: CreateAchievement): Promise<AchievementRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await idOfKey(c, s.tenant.id, 'achievements', item.key)) !== null) return 'Key already in use by another achievement';
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
      if (!(await countMetrics(c, s.tenant.id, [a.metricId]))) return 'Metric not found';
      break;
    }
    case 'streak':
      if (!a.streakLength) return 'streak achievements need streakLength';
      break;
    case 'achievement': {
      if (!a.prerequisiteIds?.length) return 'composite achievements need prerequisiteIds';
      const ids = [...new Set(a.prerequisiteIds.map((x) => x.toLowerCase()))];
      if (selfId && ids.includes(selfId)) return 'An achievement cannot be its own prerequisite';
      if ((await countAchievements(c, s.tenant.id, ids)) !== ids.length) return 'Unknown prerequisite achievement';
      if (selfId && (await anyRequires(c, s.tenant.id, ids, selfId))) return 'Prerequisites would form a cycle';
      break;
    }
    case 'api':
      break;
  }
  if (a.trigger !== 'metric' && a.eventAttributes?.length) return 'eventAttributes are only allowed on metric achievements';
  return (await attributeFilterProblem(c, s, a.userAttributes, 'user')) ?? (await attributeFilterProblem(c, s, a.eventAttributes, 'event'));
}
