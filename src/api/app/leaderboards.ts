import typia from 'typia';
import { boardPosition, boardReadCall, userNames } from '../../engine';
import type { Ctx } from '../../context';
import { requireUser } from '../../auth/auth';
import { invalid, notFound } from '../../errors';
import { io, ok, route } from '../define';
import type { IncludeFinishedQuery, LeaderboardQuery, LeaderboardRankings, LeaderboardSummary, UserLeaderboard, UserLeaderboardQuery } from '../../wire/app';
import { dayNumber, utcDate } from '../../domain/time';
import { boardAt, boardJson, boardNames, LeaderboardConfig, readDate, runDates, runIndex, runMayBeFinal, scoreValue, joinGroup } from '../../domain/leaderboards';
import type { TenantConfig } from '../../store/tenant-config';
import type { Tenant } from '../../store/tenants';
import { attributeQuery } from '../../services/user-input';
import { postgresThrough, readUser, ReadUser } from '../../services/user-calls';
import { recentBoardJson } from '../../services/recent-reads';
import { recentBoardField } from '../../domain/recent-history';
import { attributeField } from '../../domain/user-hash';
import { finalizedRun, resultsPage, userResult } from '../../store/leaderboard-results';
import { userBoardEvents } from '../../store/leaderboard-events';

interface Ranking {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
}

const decode = scoreValue;

export function leaderboardRoutes(ctx: Ctx) {
  /**
   * Which run a request asks for: `run=YYYY-MM-DD`, else the one holding
   * today (UTC), or a finished board's last run.
   */
  const runOf = (b: LeaderboardConfig, asked: string | undefined): number => {
    // The type's pattern checks the shape; this, that the date exists.
    if (asked !== undefined && dayNumber(asked) === null) throw invalid('run must be a date (YYYY-MM-DD)');
    const date = asked ?? readDate(b, utcDate(ctx.clock.now()));
    const r = runIndex(b, date < b.start ? b.start : date);
    return r ?? 0;
  };

  /**
   * A board users may read by key: any but an inactive one. A finished one
   * is left out of the list (unless asked for) but its rankings stay readable.
   */
  const visible = (cfg: TenantConfig, key: string): LeaderboardConfig => {
    const b = cfg.boardsByKey.get(key);
    if (!b || b.status === 'inactive') throw notFound(`Leaderboard "${key}" not found`);
    return boardAt(b, ctx.clock.now());
  };

  /**
   * A page of a run's rankings of one group, with names: from Redis while
   * live, from Postgres once final. With `userId` the offset counts from that
   * user's place (Trophy's rule; no rankings when the user is not on the board).
   */
  const rankings = async (t: Tenant, b: LeaderboardConfig, run: number, group: string[], offset: number, limit: number, userId = ''): Promise<Ranking[]> => {
    if (limit === 0) return [];
    const tk = ctx.keys.tenant(t.slot);
    const last = offset + limit - 1;
    const page = await boardReadCall(ctx.engine, tk, { board: tk.board(b.slot, run, group), first: offset, last, userId });
    // A live set exists until its run is final and stored, so only an empty
    // page needs Postgres (that keeps the common read off the database).
    if (page.first === null) {
      if (!(await isFinal(ctx, t, b, run))) return [];
      const rows = await resultsPage(ctx.db, { tenantId: t.id, boardId: b.id, run, group: joinGroup(group), userId, offset, limit });
      const names = await userNames(ctx.redis, tk, rows.map((r) => r.userId));
      return rows.map((r, i) => Object.assign({}, r, { userName: names[i] ?? null }));
    }
    const first = page.first;
    return page.entries.map((e, i) => ({ userId: e.userId, rank: first + i + 1, value: scoreValue(e.score), userName: e.name }));
  };

  const groupFromQuery = (b: LeaderboardConfig, userAttributes: string | undefined): string[] => {
    if (!b.breakdownKeys.length) return [];
    const attrs = attributeQuery(userAttributes);
    const missing = b.breakdownKeys.filter((k) => attrs[k] === undefined);
    if (missing.length) throw invalid(`This leaderboard is broken down by ${b.breakdownKeys.join(', ')}: pass userAttributes=${b.breakdownKeys.map((k) => `${k}:value`).join(',')}`);
    return b.breakdownKeys.map((k) => attrs[k]!);
  };

  return [
    route({
      method: 'get', path: '/v1/leaderboards', operationId: 'leaderboards_all', tag: 'Leaderboards', auth: 'application',
      summary: 'Active and scheduled leaderboards',
      query: io(typia.http.createValidateQuery<IncludeFinishedQuery>(), typia.json.schema<IncludeFinishedQuery>()),
      responses: { 200: { description: 'The leaderboards', schema: typia.json.schema<LeaderboardSummary[]>() } },
      handler: async ({ tenant, query }) => {
        const cfg = await ctx.configs.get(tenant);
        const withFinished = query.includeFinished ?? false;
        const now = ctx.clock.now();
        const list = [...cfg.boardsByKey.values()]
          .map((b) => boardAt(b, now))
          .filter((b) => b.status === 'active' || b.status === 'scheduled' || (withFinished && b.status === 'finished'))
          .sort((x, y) => x.slot - y.slot);
        return ok(list.map((b) => boardJson(b, boardNames(cfg, b))));
      },
    }),
    route({
      method: 'get', path: '/v1/leaderboards/:key', operationId: 'leaderboards_get', tag: 'Leaderboards', auth: 'application',
      summary: "A leaderboard's rankings",
      query: io(typia.http.createValidateQuery<LeaderboardQuery>(), typia.json.schema<LeaderboardQuery>()),
      responses: { 200: { description: 'The leaderboard and a page of rankings', schema: typia.json.schema<LeaderboardRankings>() } },
      handler: async ({ principal, tenant, params, query }) => {
        const cfg = await ctx.configs.get(tenant);
        const b = visible(cfg, params.key);
        const run = runOf(b, query.run);
        const group = groupFromQuery(b, query.userAttributes);
        const userId = query.userId;
        if (userId) requireUser(principal, userId);
        const list = await rankings(tenant, b, run, group, query.offset ?? 0, query.limit ?? 10, userId ?? '');
        const dates = runDates(b, run);
        return ok(Object.assign(boardJson(b, boardNames(cfg, b)), b.runUnit ? { start: dates.start, end: dates.end } : {}, {
          rankings: list.map((r) => ({ userId: r.userId, userName: r.userName, rank: r.rank, value: r.value })),
        }));
      },
    }),
    route({
      method: 'get', path: '/v1/users/:id/leaderboards/:key', operationId: 'users_leaderboard', tag: 'Users', auth: 'application',
      summary: "A user's rank on a leaderboard, with its recent changes",
      query: io(typia.http.createValidateQuery<UserLeaderboardQuery>(), typia.json.schema<UserLeaderboardQuery>()),
      responses: { 200: { description: 'The standing', schema: typia.json.schema<UserLeaderboard>() } },
      handler: async (x) => {
        const key = x.params.key;
        const u = await readUser(ctx, x, x.params.id, { recent: (cfg) => { const b = cfg.boardsByKey.get(key); return b ? recentBoardField(b.slot) : ''; } });
        const b = visible(u.cfg, key);
        const run = runOf(b, x.query.run);
        const numEvents = x.query.numEvents ?? 10;
        const group = b.breakdownKeys.map((k) => u.fields.get(attributeField(k)) ?? '');
        let rank: number | null = null;
        let value: number | null = null;
        // A run still running (or not yet stored as final) is read live from Redis.
        if (runMayBeFinal(b, run, ctx.clock.now()) && (await isFinal(ctx, u.tenant, b, run))) {
          const result = await userResult(ctx.db, u.tenant.id, b.id, run, u.id);
          rank = result?.rank ?? null;
          value = result?.value ?? null;
        } else {
          const at = await boardPosition(ctx.redis, ctx.keys.tenant(u.tenant.slot).board(b.slot, run, group), u.id);
          rank = at.rank;
          value = at.score === null ? null : decode(at.score);
        }
        // The user's newest changes kept in Redis when they reach as far as asked, else Postgres's.
        const history = recentBoardJson(u.recent, u.tracked, run, numEvents) ?? (await boardHistory(ctx, u, b, run, numEvents));
        const dates = runDates(b, run);
        return ok(Object.assign(boardJson(b, boardNames(u.cfg, b)), b.runUnit ? { start: dates.start, end: dates.end } : {}, { rank, value, history }));
      },
    }),
  ];
}

/** A user's `n` newest changes on a board's run, from Postgres (after writing what it may lack of the user's). */
async function boardHistory(ctx: Ctx, u: ReadUser, b: LeaderboardConfig, run: number, n: number) {
  await postgresThrough(ctx, u);
  return (await userBoardEvents(ctx.db, u.tenant.id, b.id, run, u.id, n)).map(({ at, ...e }) => ({
    date: e.date,
    timestamp: at.toISOString(),
    previousRank: e.previousRank,
    rank: e.rank,
    previousValue: e.previousValue,
    value: e.value,
  }));
}

/** Whether a run's final rankings have been stored (and its live sets dropped). */
async function isFinal(ctx: Ctx, t: Tenant, b: LeaderboardConfig, run: number): Promise<boolean> {
  return (await finalizedRun(ctx.db, t.id, b.id)) >= run;
}
