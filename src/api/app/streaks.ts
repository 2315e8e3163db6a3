import { Ctx, identify } from '../../context';
import { requireUser } from '../../auth/auth';
import { invalid, notFound } from '../../errors';
import { intParam } from '../../http/body';
import { reply, Route } from '../../http/server';
import { FREQ_CODE, periodIndexes, streakJson, StreakState } from '../../domain/streaks';
import { historyAndPauses, streakCall } from '../../services/streak-calls';
import type { StreakSummary } from '../../wire/app';
import { streakRankings } from '../../services/streak-rankings';

type Reply = StreakState & { x: number; fz: number };

export function streakRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/v1/users/:id/streak',
      handler: async (req) => {
        const { principal, tenant } = await identify(ctx, req);
        const id = req.params[0]!;
        requireUser(principal, id);
        const periods = intParam(req.query, 'historyPeriods', 7, 1, 100);
        const r = await streakCall(ctx, tenant, id, 'streak_read');
        if (r.kind === 'NOTFOUND') throw notFound(`User "${id}" not found`);
        if (r.kind !== 'OK') {
          // Streaks off: a user still has a (zero) streak to show.
          const cfg = await ctx.configs.get(tenant);
          return reply(200, { length: 0, frequency: cfg.streak?.frequency ?? 'daily', started: null, periodStart: null, periodEnd: null, expires: null, extended: null, streakHistory: [], pauses: [] });
        }
        const cfg = r.cfg.streak!;
        const st = JSON.parse(r.raw) as Reply;
        const n = periodIndexes(r.date, cfg.weekStart)[FREQ_CODE[cfg.frequency]];
        return reply(200, {
          ...streakJson(cfg, st, n, st.fz),
          extended: st.len > 0 && st.ext > 0 ? new Date(st.ext).toISOString() : null,
          ...(await historyAndPauses(ctx, tenant, id, cfg, st, n, periods, r.date, r)),
        });
      },
    },
    {
      method: 'get',
      pattern: '/v1/streaks',
      handler: async (req) => {
        const { principal, tenant } = await identify(ctx, req);
        const ids = req.query.getAll('userIds').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
        if (ids.length === 0) throw invalid('userIds is required');
        if (ids.length > 100) throw invalid('At most 100 userIds');
        ids.forEach((id) => requireUser(principal, id));
        const out: StreakSummary[] = [];
        for (const id of ids) {
          const r = await streakCall(ctx, tenant, id, 'streak_read');
          const st = r.kind === 'OK' ? (JSON.parse(r.raw) as Reply) : null;
          out.push({ userId: id, streakLength: st?.len ?? 0, extended: st && st.len > 0 && st.ext > 0 ? new Date(st.ext).toISOString() : null });
        }
        return reply(200, out);
      },
    },
    {
      method: 'get',
      pattern: '/v1/streaks/rankings',
      handler: async (req) => {
        // Open to application keys too, as a leaderboard's rankings are.
        const { tenant } = await identify(ctx, req);
        const limit = intParam(req.query, 'limit', 10, 1, 100);
        const type = req.query.get('type') ?? 'active';
        if (type !== 'active' && type !== 'longest') throw invalid('type must be active or longest');
        const cfg = (await ctx.configs.get(tenant)).streak;
        if (!cfg) return reply(200, []);
        return reply(200, await streakRankings(ctx, tenant, cfg, type, limit));
      },
    },
  ];
}
