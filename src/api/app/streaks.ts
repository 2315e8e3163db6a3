import typia from 'typia';
import type { Ctx } from '../../context';
import { requireUser } from '../../auth/auth';
import { invalid, notFound } from '../../errors';
import { io, ok, route } from '../define';
import { FREQ_CODE, periodIndexes, streakJson, StreakState } from '../../domain/streaks';
import { historyAndPauses, streakCall } from '../../services/streak-calls';
import type { StreakRanking, StreakRankingsQuery, StreakSummary, StreaksQuery, UserStreak, UserStreakQuery } from '../../wire/app';
import { streakRankings } from '../../services/streak-rankings';

type Reply = StreakState & { x: number; fz: number };

export function streakRoutes(ctx: Ctx) {
  return [
    route({
      method: 'get', path: '/v1/users/:id/streak', operationId: 'users_streak', tag: 'Users', auth: 'application',
      summary: "A user's streak, with its recent history and pauses",
      query: io(typia.http.createValidateQuery<UserStreakQuery>(), typia.json.schema<UserStreakQuery>()),
      responses: { 200: { description: 'The streak', schema: typia.json.schema<UserStreak>() } },
      handler: async ({ principal, tenant, params, query }) => {
        const id = params.id;
        requireUser(principal, id);
        const periods = query.historyPeriods ?? 7;
        const r = await streakCall(ctx, tenant, id, 'streak_read');
        if (r.kind === 'NOTFOUND') throw notFound(`User "${id}" not found`);
        if (r.kind !== 'OK') {
          // Streaks off: a user still has a (zero) streak to show.
          const cfg = await ctx.configs.get(tenant);
          return ok({ length: 0, frequency: cfg.streak?.frequency ?? 'daily', started: null, periodStart: null, periodEnd: null, expires: null, extended: null, streakHistory: [], pauses: [] });
        }
        const cfg = r.cfg.streak!;
        const st = JSON.parse(r.raw) as Reply;
        const n = periodIndexes(r.date, cfg.weekStart)[FREQ_CODE[cfg.frequency]];
        const past = await historyAndPauses(ctx, tenant, id, cfg, st, n, periods, r.date, r);
        return ok(Object.assign({}, streakJson(cfg, st, n, st.fz), { extended: st.len > 0 && st.ext > 0 ? new Date(st.ext).toISOString() : null }, past));
      },
    }),
    route({
      method: 'get', path: '/v1/streaks', operationId: 'streaks_list', tag: 'Streaks', auth: 'application',
      summary: 'The streak length of several users',
      query: io(typia.http.createValidateQuery<StreaksQuery>(), typia.json.schema<StreaksQuery>()),
      responses: { 200: { description: 'One entry per user asked for', schema: typia.json.schema<StreakSummary[]>() } },
      handler: async ({ principal, tenant, query }) => {
        const ids = query.userIds.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
        if (ids.length === 0) throw invalid('userIds is required');
        if (ids.length > 100) throw invalid('At most 100 userIds');
        ids.forEach((id) => requireUser(principal, id));
        const out: StreakSummary[] = [];
        for (const id of ids) {
          const r = await streakCall(ctx, tenant, id, 'streak_read');
          const st = r.kind === 'OK' ? (JSON.parse(r.raw) as Reply) : null;
          out.push({ userId: id, streakLength: st?.len ?? 0, extended: st && st.len > 0 && st.ext > 0 ? new Date(st.ext).toISOString() : null });
        }
        return ok(out);
      },
    }),
    route({
      method: 'get', path: '/v1/streaks/rankings', operationId: 'streaks_rankings', tag: 'Streaks', auth: 'application',
      summary: 'The top users by current or longest streak',
      query: io(typia.http.createValidateQuery<StreakRankingsQuery>(), typia.json.schema<StreakRankingsQuery>()),
      responses: { 200: { description: 'Longest first', schema: typia.json.schema<StreakRanking[]>() } },
      // Open to application keys too, as a leaderboard's rankings are.
      handler: async ({ tenant, query }) => {
        const limit = query.limit ?? 10;
        const type = query.type ?? 'active';
        const cfg = (await ctx.configs.get(tenant)).streak;
        if (!cfg) return ok([]);
        return ok(await streakRankings(ctx, tenant, cfg, type, limit));
      },
    }),
  ];
}
