import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { dayNumber, utcDate } from '../../../domain/time';
import { boostStatusOn } from '../../../domain/points';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { attributeFilterProblem, getRow, Resource, Scope } from '../resource';
import type {
  AttributeFilter, CreateBoost, CreateLevel, CreateSystem, CreateTrigger, PatchBoost, PatchLevel, PatchSystem, PatchTrigger, Rounding, TriggerType,
} from '../../../wire/admin';

// Points system writes (with their triggers, levels and boosts), shared by the Admin API and the configuration document.

// ---- rows and their Admin API shapes ----

export interface SystemRow {
  id: string;
  key: string;
  name: string;
  description: string;
  badge_url: string | null;
  max_points: number | null;
  status: string;
}
export interface TriggerRow {
  id: string;
  type: TriggerType;
  points: number;
  status: 'active' | 'inactive';
  metric_id: string | null;
  metric_threshold: number | null;
  achievement_id: string | null;
  streak_length: number | null;
  time_unit: 'hours' | 'days' | null;
  time_interval: number | null;
  user_attributes: AttributeFilter[];
  event_attributes: AttributeFilter[];
  block_if_out_of_points: boolean;
}
export interface LevelRow {
  id: string;
  key: string;
  name: string;
  description: string;
  badge_url: string | null;
  points: number;
}
export interface BoostRow {
  id: string;
  name: string;
  user_id: string | null;
  user_attributes: AttributeFilter[];
  start_date: string;
  end_date: string | null;
  multiplier: string;
  rounding: Rounding;
}

const badgeJson = (url: string | null) => (url ? { url } : null);

export const SYSTEMS: Resource<SystemRow> = {
  path: '/admin/v1/points',
  table: 'points_systems',
  // Numbers as JSON numbers (pg gives bigint as a string).
  cols: 'id, key, name, description, badge_url, max_points::float8 AS max_points, status',
  order: 'slot',
  noun: 'Points system',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, description: r.description, status: r.status, badge: badgeJson(r.badge_url), maxPoints: r.max_points }),
};
export const PARENT = { table: 'points_systems', column: 'system_id', noun: 'Points system' };

export function triggerJson(r: TriggerRow) {
  const out: Record<string, unknown> = {
    id: r.id, type: r.type, points: r.points, status: r.status, userAttributes: r.user_attributes, blockIfOutOfPoints: r.block_if_out_of_points,
  };
  if (r.type === 'metric') Object.assign(out, { metricId: r.metric_id, metricThreshold: r.metric_threshold, eventAttributes: r.event_attributes });
  if (r.type === 'achievement') out.achievementId = r.achievement_id;
  if (r.type === 'streak') out.streakLength = r.streak_length;
  if (r.type === 'time') Object.assign(out, { timeUnit: r.time_unit, timeInterval: r.time_interval });
  return out;
}
export const TRIGGERS: Resource<TriggerRow> = {
  path: '/admin/v1/points/:systemId/triggers',
  table: 'points_triggers',
  cols: 'id, type, points::float8 AS points, status, metric_id, metric_threshold::float8 AS metric_threshold, achievement_id, streak_length, time_unit, time_interval, user_attributes, event_attributes, block_if_out_of_points',
  order: 'slot',
  noun: 'Points trigger',
  json: triggerJson,
  parent: PARENT,
};
export const LEVELS: Resource<LevelRow> = {
  path: '/admin/v1/points/:systemId/levels',
  table: 'points_levels',
  cols: 'id, key, name, description, badge_url, points::float8 AS points',
  order: 'seq',
  noun: 'Points level',
  json: (r) => ({ id: r.id, name: r.name, key: r.key, points: r.points, description: r.description, badge: badgeJson(r.badge_url) }),
  parent: PARENT,
};

export const BOOST_COLS = `id, name, user_id, user_attributes, to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(end_date, 'YYYY-MM-DD') AS end_date, multiplier::text AS multiplier, rounding`;

export function boostsResource(ctx: Ctx): Resource<BoostRow> {
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

export async function insertTrigger(ctx: Ctx, c: PoolClient, s: Scope, t: CreateTrigger): Promise<TriggerRow | string> {
  const problem = await triggerProblem(c, s, t);
  if (problem) return problem;
  const status = t.status ?? 'inactive';
  const { rows } = await c.query<TriggerRow>(
    `INSERT INTO points_triggers (id, tenant_id, system_id, slot, type, points, status, metric_id, metric_threshold, achievement_id,
       streak_length, time_unit, time_interval, user_attributes, event_attributes, block_if_out_of_points, activated, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18) RETURNING ${TRIGGERS.cols}`,
    [
      randomUUID(), s.tenant.id, s.parentId, await nextSlot(c, s.tenant.id), t.type, t.points, status,
      t.type === 'metric' ? t.metricId : null, t.type === 'metric' ? t.metricThreshold : null,
      t.type === 'achievement' ? t.achievementId : null, t.type === 'streak' ? t.streakLength : null,
      t.type === 'time' ? t.timeUnit : null, t.type === 'time' ? t.timeInterval : null,
      JSON.stringify(t.userAttributes ?? []), JSON.stringify(t.type === 'metric' ? (t.eventAttributes ?? []) : []),
      t.blockIfOutOfPoints ?? false, status === 'active' ? new Date(ctx.clock.now()) : null, new Date(ctx.clock.now()),
    ],
  );
  return rows[0]!;
}

export async function insertLevel(ctx: Ctx, c: PoolClient, s: Scope, l: CreateLevel): Promise<LevelRow | string> {
  if (!KEY_PATTERN.test(l.key)) return KEY_RULE;
  if ((await c.query('SELECT 1 FROM points_levels WHERE system_id = $1 AND key = $2', [s.parentId, l.key])).rowCount) {
    return `Key "${l.key}" already in use by another level of this points system`;
  }
  const { rows } = await c.query<LevelRow>(
    `INSERT INTO points_levels (id, tenant_id, system_id, key, name, description, badge_url, points, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${LEVELS.cols}`,
    [randomUUID(), s.tenant.id, s.parentId, l.key, l.name, l.description ?? '', l.badge?.url ?? null, l.points, new Date(ctx.clock.now())],
  );
  return rows[0]!;
}

export async function insertBoost(ctx: Ctx, c: PoolClient, s: Scope, b: CreateBoost): Promise<BoostRow | string> {
  const problem = await boostProblem(c, s, b);
  if (problem) return problem;
  const { rows } = await c.query<BoostRow>(
    `INSERT INTO points_boosts (id, tenant_id, system_id, name, user_id, user_attributes, start_date, end_date, multiplier, rounding, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING ${BOOST_COLS}`,
    [randomUUID(), s.tenant.id, s.parentId, b.name, b.userId ?? null, JSON.stringify(b.userAttributes ?? []), b.start, b.end ?? null, b.multiplier, b.rounding ?? 'down', new Date(ctx.clock.now())],
  );
  return rows[0]!;
}

export type CreatedSystem = SystemRow & { levels?: LevelRow[]; boosts?: BoostRow[]; triggers?: TriggerRow[] };

/** A points system with its nested levels, boosts and triggers, all or nothing. */
export async function createSystem(ctx: Ctx, c: PoolClient, { tenant }: Scope, item: CreateSystem): Promise<CreatedSystem | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await c.query('SELECT 1 FROM points_systems WHERE tenant_id = $1 AND key = $2', [tenant.id, item.key])).rowCount) {
    return 'Key already in use by another points system';
  }
  const { rows } = await c.query<SystemRow>(
    `INSERT INTO points_systems (id, tenant_id, slot, key, name, description, badge_url, max_points, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${SYSTEMS.cols}`,
    [randomUUID(), tenant.id, await nextSlot(c, tenant.id), item.key, item.name, item.description ?? '', item.badge?.url ?? null, item.maxPoints ?? null, new Date(ctx.clock.now())],
  );
  const system: CreatedSystem = rows[0]!;
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
  const { rows } = await c.query<SystemRow>(
    `UPDATE points_systems SET name = coalesce($3, name), description = coalesce($4, description),
       badge_url = CASE WHEN $5 THEN $6 ELSE badge_url END, max_points = CASE WHEN $7 THEN $8 ELSE max_points END, updated = $9
     WHERE tenant_id = $1 AND id = $2 RETURNING ${SYSTEMS.cols}`,
    [tenant.id, item.id.toLowerCase(), item.name ?? null, item.description ?? null, item.badge !== undefined, item.badge?.url ?? null,
      item.maxPoints !== undefined, item.maxPoints ?? null, new Date(ctx.clock.now())],
  );
  return rows[0] ?? 'Points system not found';
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
  const m = merged;
  const { rows } = await c.query<TriggerRow>(
    `UPDATE points_triggers SET type = $3, points = $4, status = $5, metric_id = $6, metric_threshold = $7, achievement_id = $8,
       streak_length = $9, time_unit = $10, time_interval = $11, user_attributes = $12, event_attributes = $13,
       block_if_out_of_points = $14, activated = CASE WHEN $5 = 'active' AND status <> 'active' THEN $15 ELSE activated END, updated = $15
     WHERE id = $1 AND system_id = $2 RETURNING ${TRIGGERS.cols}`,
    [
      id, s.parentId, m.type, m.points, m.status,
      m.type === 'metric' ? m.metricId : null, m.type === 'metric' ? m.metricThreshold : null,
      m.type === 'achievement' ? m.achievementId : null, m.type === 'streak' ? m.streakLength : null,
      m.type === 'time' ? m.timeUnit : null, m.type === 'time' ? m.timeInterval : null,
      JSON.stringify(m.userAttributes ?? []), JSON.stringify(m.type === 'metric' ? (m.eventAttributes ?? []) : []),
      m.blockIfOutOfPoints ?? false, new Date(ctx.clock.now()),
    ],
  );
  return rows[0]!;
}

export async function updateLevel(ctx: Ctx, c: PoolClient, s: Scope, item: PatchLevel): Promise<LevelRow | string> {
  const { rows } = await c.query<LevelRow>(
    `UPDATE points_levels SET name = coalesce($3, name), points = coalesce($4, points), description = coalesce($5, description),
       badge_url = CASE WHEN $6 THEN $7 ELSE badge_url END, updated = $8
     WHERE id = $1 AND system_id = $2 RETURNING ${LEVELS.cols}`,
    [item.id.toLowerCase(), s.parentId, item.name ?? null, item.points ?? null, item.description ?? null, item.badge !== undefined, item.badge?.url ?? null, new Date(ctx.clock.now())],
  );
  return rows[0] ?? 'Points level not found';
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
  const { rows } = await c.query<BoostRow>(
    `UPDATE points_boosts SET name = $3, start_date = $4, end_date = $5, multiplier = $6, rounding = $7, user_attributes = $8, updated = $9
     WHERE id = $1 AND system_id = $2 RETURNING ${BOOST_COLS}`,
    [id, s.parentId, merged.name, merged.start, merged.end ?? null, merged.multiplier, merged.rounding, JSON.stringify(merged.userAttributes ?? []), new Date(ctx.clock.now())],
  );
  return rows[0]!;
}

class NestedProblem extends Error {}

/** What is wrong with a trigger's settings for its type, or null. */
async function triggerProblem(c: PoolClient, s: Scope, t: CreateTrigger): Promise<string | null> {
  if (t.points === 0) return 'points cannot be zero';
  switch (t.type) {
    case 'metric': {
      if (!t.metricId || !t.metricThreshold) return 'metric triggers need metricId and metricThreshold';
      const m = await c.query('SELECT 1 FROM metrics WHERE tenant_id = $1 AND id = $2', [s.tenant.id, t.metricId]);
      if (!m.rowCount) return 'Metric not found';
      break;
    }
    case 'achievement': {
      if (!t.achievementId) return 'achievement triggers need achievementId';
      const a = await c.query('SELECT 1 FROM achievements WHERE tenant_id = $1 AND id = $2', [s.tenant.id, t.achievementId]);
      if (!a.rowCount) return 'Achievement not found';
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
