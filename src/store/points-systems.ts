import type { PoolClient } from 'pg';
import type { AttributeFilter, Rounding, TriggerType } from '../wire/admin';

// Points systems and what each holds: triggers (what earns points), levels
// (totals reached) and boosts (multipliers over dates). Numbers come back as
// JSON numbers (pg gives bigint and numeric as strings), a boost's multiplier
// as text and its dates as YYYY-MM-DD.

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

export const SYSTEM_COLS = 'id, key, name, description, badge_url, max_points::float8 AS max_points, status';
export const TRIGGER_COLS =
  'id, type, points::float8 AS points, status, metric_id, metric_threshold::float8 AS metric_threshold, achievement_id, streak_length, time_unit, time_interval, user_attributes, event_attributes, block_if_out_of_points';
export const LEVEL_COLS = 'id, key, name, description, badge_url, points::float8 AS points';
export const BOOST_COLS = `id, name, user_id, user_attributes, to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(end_date, 'YYYY-MM-DD') AS end_date, multiplier::text AS multiplier, rounding`;

/** Whether the tenant has this points system. */
export async function pointsSystemExists(c: PoolClient, tenantId: string, id: string): Promise<boolean> {
  return Boolean((await c.query('SELECT 1 FROM points_systems WHERE tenant_id = $1 AND id = $2', [tenantId, id])).rowCount);
}

export async function insertSystem(c: PoolClient, tenantId: string, slot: number, s: Omit<SystemRow, 'status'>, now: Date): Promise<SystemRow> {
  const { rows } = await c.query<SystemRow>(
    `INSERT INTO points_systems (id, tenant_id, slot, key, name, description, badge_url, max_points, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${SYSTEM_COLS}`,
    [s.id, tenantId, slot, s.key, s.name, s.description, s.badge_url, s.max_points, now],
  );
  return rows[0]!;
}

/** A change to a system or a level: what is undefined (or a null name) stays as it is. */
interface Patch {
  name: string | null;
  description: string | null;
  badgeUrl: string | null | undefined;
}

/** Null when the tenant has no such system. */
export async function patchSystem(
  c: PoolClient, tenantId: string, id: string, p: Patch & { maxPoints: number | null | undefined }, now: Date,
): Promise<SystemRow | null> {
  const { rows } = await c.query<SystemRow>(
    `UPDATE points_systems SET name = coalesce($3, name), description = coalesce($4, description),
       badge_url = CASE WHEN $5 THEN $6 ELSE badge_url END, max_points = CASE WHEN $7 THEN $8 ELSE max_points END, updated = $9
     WHERE tenant_id = $1 AND id = $2 RETURNING ${SYSTEM_COLS}`,
    [tenantId, id, p.name, p.description, p.badgeUrl !== undefined, p.badgeUrl ?? null, p.maxPoints !== undefined, p.maxPoints ?? null, now],
  );
  return rows[0] ?? null;
}

/** What a trigger write sets (only the fields of its type are not null). */
export type TriggerColumns = Omit<TriggerRow, 'id'>;

const triggerValues = (t: TriggerColumns) => [
  t.type, t.points, t.status, t.metric_id, t.metric_threshold, t.achievement_id, t.streak_length, t.time_unit, t.time_interval,
  JSON.stringify(t.user_attributes), JSON.stringify(t.event_attributes), t.block_if_out_of_points,
];

/** A new trigger; an active one counts from `now` (its activation). */
export async function insertTriggerRow(
  c: PoolClient, tenantId: string, systemId: string, id: string, slot: number, t: TriggerColumns, now: Date,
): Promise<TriggerRow> {
  const { rows } = await c.query<TriggerRow>(
    `INSERT INTO points_triggers (id, tenant_id, system_id, slot, type, points, status, metric_id, metric_threshold, achievement_id,
       streak_length, time_unit, time_interval, user_attributes, event_attributes, block_if_out_of_points, activated, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18) RETURNING ${TRIGGER_COLS}`,
    [id, tenantId, systemId, slot, ...triggerValues(t), t.status === 'active' ? now : null, now],
  );
  return rows[0]!;
}

/** Rewrite a system's trigger; activating it restarts what it counts from `now`. */
export async function updateTriggerRow(c: PoolClient, systemId: string, id: string, t: TriggerColumns, now: Date): Promise<TriggerRow> {
  const { rows } = await c.query<TriggerRow>(
    `UPDATE points_triggers SET type = $3, points = $4, status = $5, metric_id = $6, metric_threshold = $7, achievement_id = $8,
       streak_length = $9, time_unit = $10, time_interval = $11, user_attributes = $12, event_attributes = $13,
       block_if_out_of_points = $14, activated = CASE WHEN $5 = 'active' AND status <> 'active' THEN $15 ELSE activated END, updated = $15
     WHERE id = $1 AND system_id = $2 RETURNING ${TRIGGER_COLS}`,
    [id, systemId, ...triggerValues(t), now],
  );
  return rows[0]!;
}

/** Whether the system has a level with this key. */
export async function levelKeyTaken(c: PoolClient, systemId: string, key: string): Promise<boolean> {
  return Boolean((await c.query('SELECT 1 FROM points_levels WHERE system_id = $1 AND key = $2', [systemId, key])).rowCount);
}

export async function insertLevelRow(c: PoolClient, tenantId: string, systemId: string, l: LevelRow, now: Date): Promise<LevelRow> {
  const { rows } = await c.query<LevelRow>(
    `INSERT INTO points_levels (id, tenant_id, system_id, key, name, description, badge_url, points, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${LEVEL_COLS}`,
    [l.id, tenantId, systemId, l.key, l.name, l.description, l.badge_url, l.points, now],
  );
  return rows[0]!;
}

/** Null when the system has no such level. */
export async function patchLevel(
  c: PoolClient, systemId: string, id: string, p: Patch & { points: number | null }, now: Date,
): Promise<LevelRow | null> {
  const { rows } = await c.query<LevelRow>(
    `UPDATE points_levels SET name = coalesce($3, name), points = coalesce($4, points), description = coalesce($5, description),
       badge_url = CASE WHEN $6 THEN $7 ELSE badge_url END, updated = $8
     WHERE id = $1 AND system_id = $2 RETURNING ${LEVEL_COLS}`,
    [id, systemId, p.name, p.points, p.description, p.badgeUrl !== undefined, p.badgeUrl ?? null, now],
  );
  return rows[0] ?? null;
}

/** What a boost write sets. */
export interface BoostColumns {
  name: string;
  start: string;
  end: string | null;
  multiplier: number;
  rounding: Rounding;
  userAttributes: AttributeFilter[];
}

/** A new boost, for one user or for those its filters match. */
export async function insertBoostRow(
  c: PoolClient, tenantId: string, systemId: string, id: string, userId: string | null, b: BoostColumns, now: Date,
): Promise<BoostRow> {
  const { rows } = await c.query<BoostRow>(
    `INSERT INTO points_boosts (id, tenant_id, system_id, name, user_id, user_attributes, start_date, end_date, multiplier, rounding, created, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING ${BOOST_COLS}`,
    [id, tenantId, systemId, b.name, userId, JSON.stringify(b.userAttributes), b.start, b.end, b.multiplier, b.rounding, now],
  );
  return rows[0]!;
}

export async function updateBoostRow(c: PoolClient, systemId: string, id: string, b: BoostColumns, now: Date): Promise<BoostRow> {
  const { rows } = await c.query<BoostRow>(
    `UPDATE points_boosts SET name = $3, start_date = $4, end_date = $5, multiplier = $6, rounding = $7, user_attributes = $8, updated = $9
     WHERE id = $1 AND system_id = $2 RETURNING ${BOOST_COLS}`,
    [id, systemId, b.name, b.start, b.end, b.multiplier, b.rounding, JSON.stringify(b.userAttributes), now],
  );
  return rows[0]!;
}

export async function systemsOf(c: PoolClient, tenantId: string): Promise<SystemRow[]> {
  return (await c.query<SystemRow>(`SELECT ${SYSTEM_COLS} FROM points_systems WHERE tenant_id = $1`, [tenantId])).rows;
}

/** A system's levels, triggers and boosts (those not aimed at one user), each in creation order. */
export async function entriesOf(c: PoolClient, systemId: string): Promise<{ levels: LevelRow[]; triggers: TriggerRow[]; boosts: BoostRow[] }> {
  const q = async <R extends { id: string }>(cols: string, table: EntryTable, extra = '') =>
    (await c.query<R>(`SELECT ${cols} FROM ${table} WHERE system_id = $1 ${extra} ORDER BY ${table === 'points_triggers' ? 'slot' : 'seq'}`, [systemId])).rows;
  return {
    levels: await q<LevelRow>(LEVEL_COLS, 'points_levels'),
    triggers: await q<TriggerRow>(TRIGGER_COLS, 'points_triggers'),
    boosts: await q<BoostRow>(BOOST_COLS, 'points_boosts', 'AND user_id IS NULL'),
  };
}

/** The tables of what a system holds. */
export type EntryTable = 'points_levels' | 'points_triggers' | 'points_boosts';

export async function deleteEntry(c: PoolClient, table: EntryTable, id: string): Promise<void> {
  await c.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
}
