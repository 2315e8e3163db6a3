import type { AdminPointsBoost, AdminPointsLevel, AdminPointsSystem, AdminPointsTrigger } from '../../../wire/admin';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { dayNumber, utcDate } from '../../../domain/time';
import { boostStatusOn } from '../../../domain/points';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { idOfKey } from '../../../store/config-keys';
import { countMetrics } from '../../../store/metrics';
import { countAchievements } from '../../../store/achievements';
import {
  BOOST_COLS, BoostColumns, BoostRow, insertBoostRow, insertLevelRow, insertSystem, insertTriggerRow, LEVEL_COLS, levelKeyTaken, LevelRow,
  patchLevel, patchSystem, SYSTEM_COLS, SystemRow, TRIGGER_COLS, TriggerColumns, TriggerRow, updateBoostRow, updateTriggerRow,
} from '../../../store/points-systems';
import { attributeFilterProblem, getRow, Resource, Scope } from '../resource';
import type {
  Badge, CreateBoost, CreateLevel, CreateSystem, CreateTrigger, PatchBoost, PatchLevel, PatchSystem, PatchTrigger,
} from '../../../wire/admin';

// Points system writes (with their triggers, levels and boosts), shared by the Admin API and the configuration document.

// ---- their Admin API shapes ----

const badgeJson = (url: string | null) => (url ? { url } : null);
/** A patch's badge as a URL to set (null: remove it; undefined: keep it). */
const badgeUrlOf = (badge: Badge | undefined) => (badge === undefined ? undefined : (badge?.url ?? null));

export const SYSTEMS: Resource<SystemRow, AdminPointsSystem> = {
  path: '/admin/v1/points',
  table: 'points_systems',
  cols: SYSTEM_COLS,
  order: 'slot',
  noun: 'Points system',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, description: r.description, status: r.status, badge: badgeJson(r.badge_url), maxPoints: r.max_points }),
};
export const PARENT = { table: 'points_systems', column: 'system_id', noun: 'Points system' };

export function triggerJson(r: TriggerRow): AdminPointsTrigger {
  return {
    id: r.id, type: r.type, points: r.points, status: r.status, userAttributes: r.user_attributes, blockIfOutOfPoints: r.block_if_out_of_points,
    ...(r.type === 'metric' ? { metricId: r.metric_id!, metricThreshold: r.metric_threshold!, eventAttributes: r.event_attributes } : {}),
    ...(r.type === 'achievement' ? { achievementId: r.achievement_id! } : {}),
    ...(r.type === 'streak' ? { streakLength: r.streak_length! } : {}),
    ...(r.type === 'time' ? { timeUnit: r.time_unit!, timeInterval: r.time_interval! } : {}),
  };
}
export const TRIGGERS: Resource<TriggerRow, AdminPointsTrigger> = {
  path: '/admin/v1/points/:systemId/triggers',
  table: 'points_triggers',
  cols: TRIGGER_COLS,
  order: 'slot',
  noun: 'Points trigger',
  json: triggerJson,
  parent: PARENT,
};
export const LEVELS: Resource<LevelRow, AdminPointsLevel> = {
  path: '/admin/v1/points/:systemId/levels',
  table: 'points_levels',
  cols: LEVEL_COLS,
  order: 'seq',
  noun: 'Points level',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, points: r.points, description: r.description, badge: badgeJson(r.badge_url) }),
  parent: PARENT,
};

export function boostsResource(ctx: Ctx): Resource<BoostRow, AdminPointsBoost> {
  // Admin views date boosts in UTC; users see them on their own calendar.
  const today = () => utcDate(ctx.clock.now());
  return {
    path: '/admin/v1/points/:systemId/boosts',
    table: 'points_boosts',
    cols: BOOST_COLS,
    order: 'seq',
    noun: 'Points boost',
    json: (r) => ({
      id: r.id, name: r.name, status: boostStatusOn({ start: r.start_date, end: r.end_date }, today()), start: r.start_date, end: r.end_date,
      multiplier: Number(r.multiplier), rounding: r.rounding, userId: r.user_id, ...(r.user_id ? {} : { userAttributes: r.user_attributes }),
    }),
    parent: PARENT,
  };
}

/** A trigger's columns: only the fields of its type are kept. */
const triggerColumns = (t: CreateTrigger): TriggerColumns => ({
  type: t.type, points: t.points, status: t.status ?? 'inactive',
  metric_id: t.type === 'metric' ? t.metricId! : null, metric_threshold: t.type === 'metric' ? t.metricThreshold! : null,
  achievement_id: t.type === 'achievement' ? t.achievementId! : null, streak_length: t.type === 'streak' ? t.streakLength! : null,
  time_unit: t.type === 'time' ? t.timeUnit! : null, time_interval: t.type === 'time' ? t.timeInterval! : null,
  user_attributes: t.userAttributes ?? [], event_attributes: t.type === 'metric' ? (t.eventAttributes ?? []) : [],
  block_if_out_of_points: t.blockIfOutOfPoints ?? false,
});

export async function insertTrigger(ctx: Ctx, c: PoolClient, s: Scope, t: CreateTrigger): Promise<TriggerRow | string> {
  const problem = await triggerProblem(c, s, t);
  if (problem) return problem;
  return insertTriggerRow(c, s.tenant.id, s.parentId!, randomUUID(), await nextSlot(c, s.tenant.id), triggerColumns(t), new Date(ctx.clock.now()));
}

export async function insertLevel(ctx: Ctx, c: PoolClient, s: Scope, l: CreateLevel): Promise<LevelRow | string> {
  if (!KEY_PATTERN.test(l.key)) return KEY_RULE;
  if (await levelKeyTaken(c, s.parentId!, l.key)) return `Key "${l.key}" already in use by another level of this points system`;
  const level = { id: randomUUID(), key: l.key, name: l.name, description: l.description ?? '', badge_url: l.badge?.url ?? null, points: l.points };
  return insertLevelRow(c, s.tenant.id, s.parentId!, level, new Date(ctx.clock.now()));
}

/** A boost's columns as given (defaults filled in). */
const boostColumns = (b: CreateBoost): BoostColumns => ({
  name: b.name, start: b.start, end: b.end ?? null, multiplier: b.multiplier, rounding: b.rounding ?? 'down', userAttributes: b.userAttributes ?? [],
});

export async function insertBoost(ctx: Ctx, c: PoolClient, s: Scope, b: CreateBoost): Promise<BoostRow | string> {
  const problem = await boostProblem(c, s, b);
  if (problem) return problem;
  return insertBoostRow(c, s.tenant.id, s.parentId!, randomUUID(), b.userId ?? null, boostColumns(b), new Date(ctx.clock.now()));
}

export type CreatedSystem = SystemRow & { levels?: LevelRow[]; boosts?: BoostRow[]; triggers?: TriggerRow[] };

/** A points system with its nested levels, boosts and triggers, all or nothing. */
export async function createSystem(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: CreateSystem): Promise<CreatedSystem | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await idOfKey(c, tenant.id, 'points_systems', item.key)) !== null) return 'Key already in use by another points system';
  const system: CreatedSystem = await insertSystem(c, tenant.id, await nextSlot(c, tenant.id), {
    id: randomUUID(), key: item.key, name: item.name, description: item.description ?? '', badge_url: item.badge?.url ?? null, max_points: item.maxPoints ?? null,
  }, new Date(ctx.clock.now()));
  const s: Scope = { tenant, parentId: system.id };
  // Nested items are all-or-nothing with their system: the first problem fails the item.
  const nested = async <I, R>(list: I[] | undefined, what: string, insert: (c: PoolClient, s: Scope, i: I) => Promise<R | string>) => {
    if (!list) return undefined;
    const out: R[] = [];
    for (const [i, x] of list.entries()) {
      const r = await insert(c, s, x);
      if (typeof r === 'string') throw new NestedProblem(`${what}[${i}]: ${r}`);
      out.push(r);
    }
    return out;
  };
  try {
    system.levels = await nested(item.levels, 'levels', (c, s, x) => insertLevel(ctx, c, s, x));
    system.boosts = await nested(item.boosts, 'boosts', (c, s, x) => insertBoost(ctx, c, s, x));
    system.triggers = await nested(item.triggers, 'triggers', (c, s, x) => insertTrigger(ctx, c, s, x));
  } catch (err) {
    if (err instanceof NestedProblem) return err.message;
    throw err;
  }
  return system;
}

export async function updateSystem(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: PatchSystem): Promise<SystemRow | string> {
  const row = await patchSystem(c, tenant.id, item.id.toLowerCase(), {
    name: item.name ?? null, description: item.description ?? null, badgeUrl: badgeUrlOf(item.badge), maxPoints: item.maxPoints,
  }, new Date(ctx.clock.now()));
  return row ?? 'Points system not found';
}

export async function updateTrigger(ctx: Ctx, c: PoolClient, s: Scope, item: PatchTrigger): Promise<TriggerRow | string> {
  const id = item.id.toLowerCase();
  const row = await getRow(c, TRIGGERS, s, id);
  if (!row) return 'Points trigger not found';
  const merged: CreateTrigger = {
    type: item.type ?? row.type,
    points: item.points ?? row.points,
    status: item.status ?? row.status,
    userAttributes: item.userAttributes !== undefined ? item.userAttributes : row.user_attributes,
    eventAttributes: item.eventAttributes !== undefined ? item.eventAttributes : row.event_attributes,
    metricId: item.metricId ?? row.metric_id ?? undefined,
    metricThreshold: item.metricThreshold ?? row.metric_threshold ?? undefined,
    achievementId: item.achievementId ?? row.achievement_id ?? undefined,
    streakLength: item.streakLength ?? row.streak_length ?? undefined,
    timeUnit: item.timeUnit ?? row.time_unit ?? undefined,
    timeInterval: item.timeInterval ?? row.time_interval ?? undefined,
    blockIfOutOfPoints: item.blockIfOutOfPoints ?? row.block_if_out_of_points,
  };
  const problem = await triggerProblem(c, s, merged);
  if (problem) return problem;
  return updateTriggerRow(c, s.parentId!, id, triggerColumns(merged), new Date(ctx.clock.now()));
}

export async function updateLevel(ctx: Ctx, c: PoolClient, s: Scope, item: PatchLevel): Promise<LevelRow | string> {
  const row = await patchLevel(c, s.parentId!, item.id.toLowerCase(), {
    name: item.name ?? null, points: item.points ?? null, description: item.description ?? null, badgeUrl: badgeUrlOf(item.badge),
  }, new Date(ctx.clock.now()));
  return row ?? 'Points level not found';
}

export async function updateBoost(ctx: Ctx, c: PoolClient, s: Scope, item: PatchBoost): Promise<BoostRow | string> {
  const id = item.id.toLowerCase();
  const row = await getRow(c, boostsResource(ctx), s, id);
  if (!row) return 'Points boost not found';
  const merged: CreateBoost = {
    userId: row.user_id,
    name: item.name ?? row.name,
    start: item.start ?? row.start_date,
    end: item.end !== undefined ? item.end : row.end_date,
    multiplier: item.multiplier ?? Number(row.multiplier),
    rounding: item.rounding ?? row.rounding,
    userAttributes: item.userAttributes !== undefined ? item.userAttributes : row.user_attributes,
  };
  const problem = await boostProblem(c, s, merged);
  if (problem) return problem;
  return updateBoostRow(c, s.parentId!, id, boostColumns(merged), new Date(ctx.clock.now()));
}

class NestedProblem extends Error {}

/** What is wrong with a trigger's settings for its type, or null. */
async function triggerProblem(c: PoolClient, s: Scope, t: CreateTrigger): Promise<string | null> {
  if (t.points === 0) return 'points cannot be zero';
  switch (t.type) {
    case 'metric': {
      if (!t.metricId || !t.metricThreshold) return 'metric triggers need metricId and metricThreshold';
      if (!(await countMetrics(c, s.tenant.id, [t.metricId]))) return 'Metric not found';
      break;
    }
    case 'achievement': {
      if (!t.achievementId) return 'achievement triggers need achievementId';
      if (!(await countAchievements(c, s.tenant.id, [t.achievementId]))) return 'Achievement not found';
      break;
    }
    case 'streak':
      if (!t.streakLength) return 'streak triggers need streakLength';
      break;
    case 'time':
      if (!t.timeUnit || !t.timeInterval) return 'time triggers need timeUnit and timeInterval';
      break;
    case 'user_creation':
      break;
  }
  if (t.type !== 'metric' && t.eventAttributes?.length) return 'eventAttributes are only allowed on metric triggers';
  return (await attributeFilterProblem(c, s, t.userAttributes, 'user')) ?? (await attributeFilterProblem(c, s, t.eventAttributes, 'event'));
}

async function boostProblem(c: PoolClient, s: Scope, b: CreateBoost): Promise<string | null> {
  if (!(b.multiplier > 0 && b.multiplier < 100 && b.multiplier !== 1)) return 'multiplier must be greater than 0, less than 100 and not 1';
  const start = dayNumber(b.start);
  if (start === null) return 'start must be a date (YYYY-MM-DD)';
  if (b.end !== undefined && b.end !== null) {
    const end = dayNumber(b.end);
    if (end === null) return 'end must be a date (YYYY-MM-DD)';
    if (end < start) return 'end must not be before start';
  }
  if (b.userId && b.userAttributes?.length) return 'userId and userAttributes cannot both be set';
  return attributeFilterProblem(c, s, b.userAttributes, 'user');
}
