import { Ctx, identify } from '../../context';
import { requireUser } from '../../auth/auth';
import { badRequest, notFound } from '../../http/errors';
import { intParam } from '../../http/body';
import { reply, Request, Route } from '../../http/server';
import { dayNumber } from '../../domain/time';
import { boardJson, boardNames, LeaderboardConfig, runDates, runIndex, TIE_BITS } from '../../domain/leaderboards';
import type { TenantConfig } from '../../store/tenant-config';
import type { Tenant } from '../../store/tenants';
import { attributeQuery } from './points';
import { readUser } from './users';

interface Ranking {
  userId: string;
  rank: number;
  value: number;
}

const decode = (score: string) => Math.floor(Number(score) / TIE_BITS);

export function leaderboardRoutes(ctx: Ctx): Route[] {
  /** Which run a request asks for: `run=YYYY-MM-DD`, else the one holding today (UTC). */
  const runOf = (b: LeaderboardConfig, req: Request): number => {
    const asked = req.query.get('run');
    if (asked !== null && dayNumber(asked) === null) throw badRequest('run must be a date (YYYY-MM-DD)');
    const date = asked ?? new Date(ctx.clock.now()).toISOString().slice(0, 10);
    const r = runIndex(b, date < b.start ? b.start : date);
    return r ?? 0;
  };

  /** A board users may see: active or scheduled; a finished one only for a named run. */
  const visible = (cfg: TenantConfig, key: string, req: Request): LeaderboardConfig => {
    const b = cfg.boardsByKey.get(key);
    if (!b || b.status === 'inactive' || (b.status === 'finished' && !req.query.get('run'))) throw notFound(`Leaderboard "${key}" not found`);
    return b;
  };

  /** A run's rankings of one group, from Redis while live, from Postgres once final. */
  const rankings = async (t: Tenant, b: LeaderboardConfig, run: number, group: string[], offset: number, limit: number): Promise<Ranking[]> => {
    if (limit === 0) return [];
    // A live set exists until its run is final and stored, so only an empty
    // page needs Postgres (that keeps the common read off the database).
    const flat = await ctx.redis.zrevrange(ctx.keys.tenant(t.slot).board(b.slot, run, group), offset, offset + limit - 1, 'WITHSCORES');
    if (flat.length === 0 && (await isFinal(ctx, t, b, run))) {
      const { rows } = await ctx.db.query<Ranking>(
        `SELECT user_id AS "userId", rank, value::int AS value FROM leaderboard_results
         WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND grp = $4 ORDER BY rank OFFSET $5 LIMIT $6`,
        [t.id, b.id, run, group.join('\x1f'), offset, limit],
      );
      return rows;
    }
    const out: Ranking[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ userId: flat[i]!, rank: offset + i / 2 + 1, value: decode(flat[i + 1]!) });
    return out;
  };

  const groupFromQuery = (b: LeaderboardConfig, req: Request): string[] => {
    if (!b.breakdownKeys.length) return [];
    const attrs = attributeQuery(req.query);
    const missing = b.breakdownKeys.filter((k) => attrs[k] === undefined);
    if (missing.length) throw badRequest(`This leaderboard is broken down by ${b.breakdownKeys.join(', ')}: pass userAttributes=${b.breakdownKeys.map((k) => `${k}:value`).join(',')}`);
    return b.breakdownKeys.map((k) => attrs[k]!);
  };

  return [
    {
      method: 'get',
      pattern: '/v1/leaderboards',
      handler: async (req) => {
        const { tenant } = await identify(ctx, req);
        const cfg = await ctx.configs.get(tenant);
        const withFinished = req.query.get('includeFinished') === 'true';
        const list = [...cfg.boardsByKey.values()]
          .filter((b) => b.status === 'active' || b.status === 'scheduled' || (withFinished && b.status === 'finished'))
          .sort((x, y) => x.slot - y.slot);
        return reply(200, list.map((b) => ({ ...boardJson(b, boardNames(cfg, b)), status: b.status })));
      },
    },
    {
      method: 'get',
      pattern: '/v1/leaderboards/:key',
      handler: async (req) => {
        const { principal, tenant } = await identify(ctx, req);
        const cfg = await ctx.configs.get(tenant);
        const b = visible(cfg, req.params[0]!, req);
        const offset = intParam(req.query, 'offset', 0, 0, 1_000_000);
        const limit = intParam(req.query, 'limit', 10, 0, 1000);
        const run = runOf(b, req);
        const group = groupFromQuery(b, req);
        const userId = req.query.get('userId');
        let list: Ranking[];
        if (userId) {
          requireUser(principal, userId);
          list = (await rankings(tenant, b, run, group, 0, b.maxParticipants)).filter((r) => r.userId === userId);
        } else {
          list = await rankings(tenant, b, run, group, offset, limit);
        }
        const names = list.length ? await ctx.redis.pipeline(list.map((r) => ['hget', ctx.keys.tenant(tenant.slot).user(r.userId), 'n'])).exec() : [];
        const dates = runDates(b, run);
        return reply(200, {
          ...boardJson(b, boardNames(cfg, b)),
          ...(b.runUnit ? { start: dates.start, end: dates.end } : {}),
          status: b.status,
          rankings: list.map((r, i) => ({ userId: r.userId, userName: (names?.[i]?.[1] as string | null) ?? null, rank: r.rank, value: r.value })),
        });
      },
    },
    {
      method: 'get',
      pattern: '/v1/users/:id/leaderboards/:key',
      handler: async (req) => {
        const u = await readUser(ctx, req);
        const b = visible(u.cfg, req.params[1]!, req);
        const run = runOf(b, req);
        const numEvents = intParam(req.query, 'numEvents', 10, 0, 100);
        const group = b.breakdownKeys.map((k) => u.fields.get(`a:${k}`) ?? '');
        let rank: number | null = null;
        let value: number | null = null;
        if (await isFinal(ctx, u.tenant, b, run)) {
          const { rows } = await ctx.db.query<{ rank: number; value: number }>(
            'SELECT rank, value::int AS value FROM leaderboard_results WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND user_id = $4',
            [u.tenant.id, b.id, run, u.id],
          );
          rank = rows[0]?.rank ?? null;
          value = rows[0]?.value ?? null;
        } else {
          const key = ctx.keys.tenant(u.tenant.slot).board(b.slot, run, group);
          const [r, s] = await Promise.all([ctx.redis.zrevrank(key, u.id), ctx.redis.zscore(key, u.id)]);
          rank = r === null ? null : r + 1;
          value = s === null ? null : decode(s);
        }
        const { rows } = await ctx.db.query<{ d: string; at: Date; previous_rank: number | null; rank: number | null; previous_value: string | null; value: string | null }>(
          `SELECT to_char(local_date, 'YYYY-MM-DD') AS d, at, previous_rank, rank, previous_value, value FROM leaderboard_events
           WHERE tenant_id = $1 AND leaderboard_id = $2 AND run = $3 AND user_id = $4 ORDER BY at DESC, seq DESC LIMIT $5`,
          [u.tenant.id, b.id, run, u.id, numEvents],
        );
        const dates = runDates(b, run);
        return reply(200, {
          ...boardJson(b, boardNames(u.cfg, b)),
          ...(b.runUnit ? { start: dates.start, end: dates.end } : {}),
          rank,
          value,
          history: rows.map((e) => ({
            date: e.d,
            timestamp: e.at.toISOString(),
            previousRank: e.previous_rank,
            rank: e.rank,
            previousValue: e.previous_value === null ? null : Number(e.previous_value),
            value: e.value === null ? null : Number(e.value),
          })),
        });
      },
    },
  ];
}

/** Whether a run's final rankings have been stored (and its live sets dropped). */
async function isFinal(ctx: Ctx, t: Tenant, b: LeaderboardConfig, run: number): Promise<boolean> {
  const { rows } = await ctx.db.query<{ finalized_run: number }>('SELECT finalized_run FROM leaderboards WHERE id = $1 AND tenant_id = $2', [b.id, t.id]);
  return (rows[0]?.finalized_run ?? -1) >= run;
}
