import type { AdminLeaderboard } from '../../../wire/admin';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { dayNumber, utcDate } from '../../../domain/time';
import { BoardStatus, statusAt } from '../../../domain/leaderboards';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { idOfKey } from '../../../store/config-keys';
import { attributesAmong } from '../../../store/attributes';
import { countMetrics } from '../../../store/metrics';
import { pointsSystemExists } from '../../../store/points-systems';
import { BOARD_COLS, BoardColumns, BoardRow, insertBoard, updateBoardRow } from '../../../store/leaderboards';
import { getRow, Resource, Scope } from '../resource';
import type { CreateBoard, PatchBoard } from '../../../wire/admin';

/** The collection; statuses as they stand at `now()` (see statusAt). */
export const boards = (now: () => number): Resource<BoardRow, AdminLeaderboard> => ({
  path: '/admin/v1/leaderboards',
  table: 'leaderboards',
  cols: BOARD_COLS,
  order: 'slot',
  noun: 'Leaderboard',
  json: (r) => ({
    id: r.id, name: r.name, key: r.key, description: r.description ?? undefined, status: statusAt({ status: r.status, end: r.end_date }, now()), rankBy: r.rank_by,
    maxParticipants: r.max_participants, start: r.start_date, breakdownAttributes: r.breakdown_attributes,
    ...(r.metric_id ? { metricId: r.metric_id } : {}),
    ...(r.points_system_id ? { pointsSystemId: r.points_system_id } : {}),
    ...(r.end_date ? { end: r.end_date } : {}),
    ...(r.start_time ? { startTime: r.start_time } : {}),
    ...(r.end_time ? { endTime: r.end_time } : {}),
    ...(r.run_unit ? { runUnit: r.run_unit, runInterval: r.run_interval! } : {}),
  }),
});

const todayOf = (ctx: Ctx) => utcDate(ctx.clock.now());

export async function createBoard(ctx: Ctx, c: PoolClient, s: Scope, item: CreateBoard): Promise<BoardRow | string> {
  if (!KEY_PATTERN.test(item.key)) return KEY_RULE;
  if ((await idOfKey(c, s.tenant.id, 'leaderboards', item.key)) !== null) return 'Key already in use by another leaderboard';
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
  const columns: BoardColumns = {
    key: b.key, name: b.name, description: b.description ?? null, status, rank_by: b.rankBy, metric_id: b.rankBy === 'metric' ? b.metricId! : null,
    points_system_id: b.rankBy === 'points' ? b.pointsSystemId! : null, max_participants: b.maxParticipants ?? 1000, start_date: start, end_date: end,
    start_time: b.startTime ?? null, end_time: b.endTime ?? null, breakdown_attributes: (b.breakdownAttributes ?? []).map((x) => x.toLowerCase()),
    run_unit: b.runUnit ?? null, run_interval: b.runUnit ? b.runInterval! : null,
  };
  const at = new Date(ctx.clock.now());
  return before ? updateBoardRow(c, s.tenant.id, before.id, columns, at) : insertBoard(c, s.tenant.id, randomUUID(), await nextSlot(c, s.tenant.id), columns, at);
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
    if (!(await countMetrics(c, s.tenant.id, [b.metricId]))) return 'Metric not found';
  }
  if (b.rankBy === 'points') {
    if (!b.pointsSystemId) return 'points leaderboards need pointsSystemId';
    if (!(await pointsSystemExists(c, s.tenant.id, b.pointsSystemId))) return 'Points system not found';
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
    if ((await attributesAmong(c, s.tenant.id, 'user', ids)).length !== new Set(ids).size) return 'breakdownAttributes must be user attribute ids';
  }
  return null;
}
