import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { dayNumber, utcDate } from '../../../domain/time';
import { BoardStatus, RankBy, RunUnit, statusAt } from '../../../domain/leaderboards';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { getRow, Resource, Scope } from '../resource';
import type { CreateBoard, PatchBoard } from '../../../wire/admin';

export interface BoardRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  status: BoardStatus;
  rank_by: RankBy;
  metric_id: string | null;
  points_system_id: string | null;
  max_participants: number;
  start_date: string;
  end_date: string | null;
  start_time: string | null;
  end_time: string | null;
  breakdown_attributes: string[];
  run_unit: RunUnit | null;
  run_interval: number | null;
}

export const BOARD_COLS = `id, key, name, description, status, rank_by, metric_id, points_system_id, max_participants,
    to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(end_date, 'YYYY-MM-DD') AS end_date, start_time, end_time,
    breakdown_attributes, run_unit, run_interval`;

/** The collection; statuses as they stand at `now()` (see statusAt). */
export const boards = (now: () => number): Resource<BoardRow> => ({
  path: '/admin/v1/leaderboards',
  table: 'leaderboards',
  cols: BOARD_COLS,
  order: 'slot',
  noun: 'Leaderboard',
  json: (r) => {
    const out: Record<string, unknown> = {
      id: r.id, name: r.name, key: r.key, description: r.description ?? undefined, status: statusAt({ status: r.status, end: r.end_date }, now()), rankBy: r.rank_by,
      maxParticipants: r.max_participants, start: r.start_date, breakdownAttributes: r.breakdown_attributes,
    };
    if (r.metric_id) out.metricId = r.metric_id;
    if (r.points_system_id) out.pointsSystemId = r.points_system_id;
    if (r.end_date) out.end = r.end_date;
    if (r.start_time) out.startTime = r.start_time;
    if (r.end_time) out.endTime = r.end_time;
    if (r.run_unit) Object.assign(out, { runUnit: r.run_unit, runInterval: r.run_interval });
    return out;
  },
});

const todayOf = (ctx: Ctx) => utcDate(ctx.clock.now());

export async function createBoard(ctx: Ctx, c: PoolClient, s: Scope, item: CreateBoard): Promise<BoardRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await c.query('SELECT 1 FROM leaderboards WHERE tenant_id = $1 AND key = $2', [s.tenant.id, item.key])).rowCount) {
    return 'Key already in use by another leaderboard';
  }
  return writeBoard(ctx, c, s, item, null);
}

export async function updateBoard(ctx: Ctx, c: PoolClient, s: Scope, item: PatchBoard): Promise<BoardRow | string> {
  const row = await getRow(c, boards(() => ctx.clock.now()), s, item.id.toLowerCase());
  if (!row) return 'Leaderboard not found';
  const merged: CreateBoard = {
    key: item.key ?? row.key,
    name: item.name ?? row.name,
    description: item.description !== undefined ? item.description : row.description,
    status: item.status ?? row.status,
    rankBy: item.rankBy ?? row.rank_by,
    metricId: item.metricId ?? row.metric_id ?? undefined,
    pointsSystemId: item.pointsSystemId ?? row.points_system_id ?? undefined,
    maxParticipants: item.maxParticipants ?? row.max_participants,
    start: item.start ?? row.start_date,
    end: item.end !== undefined ? item.end : row.end_date,
    startTime: item.startTime !== undefined ? item.startTime : row.start_time,
    endTime: item.endTime !== undefined ? item.endTime : row.end_time,
    breakdownAttributes: item.breakdownAttributes ?? row.breakdown_attributes,
    runUnit: item.runUnit !== undefined ? item.runUnit : row.run_unit,
    runInterval: item.runInterval !== undefined ? item.runInterval : row.run_interval,
  };
  return writeBoard(ctx, c, s, merged, row);
}

async function writeBoard(ctx: Ctx, c: PoolClient, s: Scope, b: CreateBoard, before: BoardRow | null): Promise<BoardRow | string> {
  const problem = await boardProblem(c, s, b, before);
  if (problem) return problem;
  const start = b.start ?? todayOf(ctx);
  let status: BoardStatus = b.status ?? before?.status ?? 'inactive';
  if (status === 'active' || status === 'scheduled') status = start > todayOf(ctx) ? 'scheduled' : 'active';
  let end = b.end ?? null;
  // Finishing ends the board today (UTC): the run holding today is its last, the one reads without run= answer.
  if (status === 'finished' && before?.status !== 'finished') {
    const now = start > todayOf(ctx) ? start : todayOf(ctx);
    if (end === null || end > now) end = now;
  }
  const values = [
    b.key, b.name, b.description ?? null, status, b.rankBy, b.rankBy === 'metric' ? b.metricId : null,
    b.rankBy === 'points' ? b.pointsSystemId : null, b.maxParticipants ?? 1000, start, end, b.startTime ?? null,
    b.endTime ?? null, (b.breakdownAttributes ?? []).map((x) => x.toLowerCase()), b.runUnit ?? null, b.runUnit ? b.runInterval : null,
    new Date(ctx.clock.now()),
  ];
  const { rows } = before
    ? await c.query<BoardRow>(
        `UPDATE leaderboards SET key = $3, name = $4, description = $5, status = $6, rank_by = $7, metric_id = $8, points_system_id = $9,
           max_participants = $10, start_date = $11, end_date = $12, start_time = $13, end_time = $14, breakdown_attributes = $15,
           run_unit = $16, run_interval = $17, updated = $18
         WHERE tenant_id = $1 AND id = $2 RETURNING ${BOARD_COLS}`,
        [s.tenant.id, before.id, ...values],
      )
    : await c.query<BoardRow>(
        `INSERT INTO leaderboards (tenant_id, id, slot, key, name, description, status, rank_by, metric_id, points_system_id,
           max_participants, start_date, end_date, start_time, end_time, breakdown_attributes, run_unit, run_interval, created, updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19) RETURNING ${BOARD_COLS}`,
        [s.tenant.id, randomUUID(), await nextSlot(c, s.tenant.id), ...values],
      );
  return rows[0]!;
}

async function boardProblem(c: PoolClient, s: Scope, b: CreateBoard, before: BoardRow | null): Promise<string | null> {
  if (before && before.status !== 'inactive') {
    const fixed =
      b.key !== before.key || b.rankBy !== before.rank_by || (b.metricId ?? null) !== before.metric_id ||
      (b.pointsSystemId ?? null) !== before.points_system_id || (b.runUnit ?? null) !== before.run_unit ||
      (b.runUnit ? b.runInterval : null) !== before.run_interval || b.start !== before.start_date ||
      JSON.stringify((b.breakdownAttributes ?? []).map((x) => x.toLowerCase())) !== JSON.stringify(before.breakdown_attributes);
    if (fixed) return 'Only name, description, status, end date, time window and participant limit can change once a leaderboard is not inactive';
    if (before.status === 'finished' && b.status !== 'finished') return 'A finished leaderboard cannot be reopened';
  }
  if (b.rankBy === 'metric') {
    if (!b.metricId) return 'metric leaderboards need metricId';
    if (!(await c.query('SELECT 1 FROM metrics WHERE tenant_id = $1 AND id = $2', [s.tenant.id, b.metricId])).rowCount) return 'Metric not found';
  }
  if (b.rankBy === 'points') {
    if (!b.pointsSystemId) return 'points leaderboards need pointsSystemId';
    if (!(await c.query('SELECT 1 FROM points_systems WHERE tenant_id = $1 AND id = $2', [s.tenant.id, b.pointsSystemId])).rowCount) return 'Points system not found';
  }
  if (b.rankBy === 'streak' && b.runUnit) return 'Streak leaderboards can only be perpetual';
  if (b.runUnit && !b.runInterval) return 'runInterval is required with runUnit';
  if (b.start !== undefined && dayNumber(b.start) === null) return 'start must be a date (YYYY-MM-DD)';
  if (b.end !== undefined && b.end !== null && (dayNumber(b.end) === null || (b.start !== undefined && b.end < b.start))) {
    return 'end must be a date (YYYY-MM-DD) not before start';
  }
  if (b.startTime && b.endTime && b.endTime <= b.startTime) return 'endTime must be after startTime';
  const ids = (b.breakdownAttributes ?? []).map((x) => x.toLowerCase());
  if (ids.length) {
    const found = await c.query("SELECT 1 FROM attributes WHERE tenant_id = $1 AND type = 'user' AND id = ANY($2::uuid[])", [s.tenant.id, ids]);
    if (found.rowCount !== new Set(ids).size) return 'breakdownAttributes must be user attribute ids';
  }
  return null;
}
