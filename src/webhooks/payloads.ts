import type { RedisClient } from '../redis/client';
import { userJson } from '../domain/users';
import { boardJson, boardNames, BoardLookup, LeaderboardConfig, runDates, scoreValue } from '../domain/leaderboards';
import type { TenantKeys } from '../redis/keys';
import { CREATED_FIELD, isUser, NAME_FIELD } from '../domain/user-hash';

/**
 * Body parts shared by several event types. Shapes follow Trophy's webhook
 * schemas (User, LeaderboardResponseWithRankings, PointsBoostWebhookPayload).
 */

/** Leaderboard events carry the top of the board, as Trophy's do. */
export const TOP_RANKINGS = 10;

/** A user from their hash fields (as Redis holds them); `at` stands in for a creation time not known. */
export function userPayload(id: string, fields: Map<string, string>, at: number) {
  if (!isUser(fields)) fields = new Map([...fields, [CREATED_FIELD, String(at)]]);
  return userJson(id, fields);
}

export interface Ranking {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
}

/** A run of a board with its rankings. */
export function boardPayload(cfg: BoardLookup, b: LeaderboardConfig, run: number, status: string, rankings: Ranking[], group: string[]) {
  const dates = runDates(b, run);
  const out: Record<string, unknown> = { ...boardJson(b, boardNames(cfg, b)), start: dates.start, end: dates.end, status, rankings };
  // A broken-down board ranks each group apart: say which one this is.
  if (b.breakdownKeys.length) out.breakdownAttributeValues = b.breakdownKeys.map((key, i) => ({ key, value: group[i] ?? null }));
  return out;
}

/** Display names of users, from their hashes (null when unset). */
export async function userNames(redis: RedisClient, tk: TenantKeys, ids: string[]): Promise<(string | null)[]> {
  if (ids.length === 0) return [];
  const res = await redis.pipeline(ids.map((id) => ['hget', tk.user(id), NAME_FIELD])).exec();
  return ids.map((_, i) => (res?.[i]?.[1] as string | null | undefined) ?? null);
}

/** The live top of a run's group, from Redis. */
export async function liveRankings(redis: RedisClient, tk: TenantKeys, b: LeaderboardConfig, run: number, group: string[]): Promise<Ranking[]> {
  const flat = await redis.zrevrange(tk.board(b.slot, run, group), 0, TOP_RANKINGS - 1, 'WITHSCORES');
  const rows: { userId: string; rank: number; value: number }[] = [];
  for (let i = 0; i < flat.length; i += 2) rows.push({ userId: flat[i]!, rank: i / 2 + 1, value: scoreValue(flat[i + 1]!) });
  return withNames(redis, tk, rows);
}

export async function withNames(redis: RedisClient, tk: TenantKeys, rows: { userId: string; rank: number; value: number }[]): Promise<Ranking[]> {
  const names = await userNames(redis, tk, rows.map((r) => r.userId));
  return rows.map((r, i) => ({ userId: r.userId, userName: names[i]!, rank: r.rank, value: r.value }));
}
