import { boardReadCall } from '../engine';
import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';
import { boardAt, boardJson, boardNames, LeaderboardConfig, runDates, runIndex, scoreValue } from '../domain/leaderboards';
import type { Ranking } from '../webhooks/payloads';
import { utcDate } from '../domain/time';

/** What a leaderboard subscription watches: the current run's top, and optionally the places around one user. */
export interface BoardViewSpec {
  key: string;
  top: number;
  around: { userId: string; n: number } | null;
}

/** A board live subscribers may watch: one they could read over REST now (active or scheduled), without breakdowns. */
export function watchable(cfg: TenantConfig, key: string): LeaderboardConfig | string {
  const b = cfg.boardsByKey.get(key);
  if (!b || (b.status !== 'active' && b.status !== 'scheduled')) return `Leaderboard "${key}" not found`;
  if (b.breakdownKeys.length) return `Leaderboard "${key}" is broken down by ${b.breakdownKeys.join(', ')}: live views of broken-down boards are not supported`;
  return b;
}

/** The run holding today (UTC), as `GET /v1/leaderboards/{key}` reads it. */
export function currentRun(b: LeaderboardConfig, now: number): number {
  const date = utcDate(now);
  return runIndex(b, date < b.start ? b.start : date) ?? 0;
}

/** Rankings of places `first`..`last` (0-based) of a live run, with names, in one script call. */
async function page(ctx: Ctx, t: Tenant, b: LeaderboardConfig, run: number, first: number, last: number): Promise<Ranking[]> {
  if (last < first) return [];
  const tk = ctx.keys.tenant(t.slot);
  const page = await boardReadCall(ctx.engine, tk, { board: tk.board(b.slot, run, []), first, last, userId: '' });
  if (page.first === null) return [];
  const from = page.first;
  return page.entries.map((e, i) => ({ userId: e.userId, userName: e.name, rank: from + i + 1, value: scoreValue(e.score) }));
}

/**
 * The view sent to a subscription: the board as `GET /v1/leaderboards/{key}?limit=top`
 * answers it, plus `around` (n places either side of the user; empty while
 * the user is not ranked). Live runs only: a run that became final has no
 * live set, and its subscribers see it empty until the next run's first entry.
 */
export async function readBoardView(ctx: Ctx, t: Tenant, cfg: TenantConfig, b: LeaderboardConfig, spec: BoardViewSpec) {
  const run = currentRun(b, ctx.clock.now());
  const [rankings, around] = await Promise.all([
    page(ctx, t, b, run, 0, spec.top - 1),
    spec.around ? aroundUser(ctx, t, b, run, spec.around) : Promise.resolve(undefined),
  ]);
  const dates = runDates(b, run);
  // Its status as the REST reads show it (finished once past its end, before the scheduler records it).
  const shown = boardAt(b, ctx.clock.now());
  const leaderboard = { ...boardJson(shown, boardNames(cfg, b)), ...(b.runUnit ? { start: dates.start, end: dates.end } : {}), status: shown.status, rankings };
  return around ? { leaderboard, around } : { leaderboard };
}

async function aroundUser(ctx: Ctx, t: Tenant, b: LeaderboardConfig, run: number, a: { userId: string; n: number }): Promise<Ranking[]> {
  const r = await ctx.redis.zrevrank(ctx.keys.tenant(t.slot).board(b.slot, run, []), a.userId);
  if (r === null) return [];
  return page(ctx, t, b, run, Math.max(0, r - a.n), r + a.n);
}
