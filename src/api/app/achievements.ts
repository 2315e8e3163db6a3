import { randomUUID } from 'node:crypto';
import typia from 'typia';
import { Ctx, identify } from '../../context';
import { achievementCompleteCall, achievementStats, firstZone, STALE, withConfig, zoneKey } from '../../engine';
import { requireUser } from '../../auth/auth';
import { boolParam, check, jsonBody } from '../../http/body';
import { notFound, invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { AchievementConfig, achievementJson, rarity } from '../../domain/achievements';
import { filtersMatch, pointsResponse, ScriptPoints, userBoostsArg } from '../../domain/points';
import { derivedId } from '../../domain/ids';
import { localDate } from '../../domain/time';
import { userPatch } from '../../domain/users';
import { FREQ_CODE, parseState } from '../../domain/streaks';
import type { TenantConfig } from '../../store/tenant-config';
import { checkUserAttributes, zoneOf } from '../../services/user-input';
import type { CompleteAchievementBody } from '../../wire/app';
import { readUser } from '../../services/user-calls';
import { metricName } from '../../services/completed-achievements';
import { attributeQuery } from '../../services/user-input';
import { achievedField, totalField, streakField } from '../../domain/user-hash';

const validateComplete = typia.createValidate<CompleteAchievementBody>();

/** Completions and users of the tenant, in one call. */
async function stats(ctx: Ctx, slot: number, list: AchievementConfig[]): Promise<{ users: number; completions: Map<string, number> }> {
  const s = await achievementStats(ctx.redis, ctx.keys.tenant(slot), list.map((a) => a.slot));
  return { users: s.users, completions: new Map(list.map((a, i) => [a.id, s.completions[i]!])) };
}

/** A user's progress toward an achievement (Laurel's addition): where they are and where it completes. */
function progress(cfg: TenantConfig, a: AchievementConfig, fields: Map<string, string>): { current: number; target: number } {
  switch (a.trigger) {
    case 'metric':
      return { current: Number(fields.get(totalField(a.metricSlot ?? -1)) ?? 0), target: a.metricValue! };
    case 'achievement':
      return {
        current: a.prerequisiteIds.filter((id) => {
          const p = cfg.achievementsById.get(id);
          return p !== undefined && fields.has(achievedField(p.slot));
        }).length,
        target: a.prerequisiteIds.length,
      };
    case 'streak':
      return { current: cfg.streak?.enabled ? parseState(fields.get(streakField(FREQ_CODE[cfg.streak.frequency]))).len : 0, target: a.streakLength! };
    case 'api':
      return { current: fields.has(achievedField(a.slot)) ? 1 : 0, target: 1 };
  }
}

export function achievementRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/v1/achievements',
      handler: async (req) => {
        const { tenant } = await identify(ctx, req);
        // `userAttributes=plan:pro,…`: only achievements a user with those attributes can earn.
        const attrs = req.query.has('userAttributes') ? attributeQuery(req.query) : null;
        const cfg = await ctx.configs.get(tenant);
        const list = [...cfg.achievementsById.values()]
          .filter((a) => a.status === 'active' && (!attrs || filtersMatch(a.userAttributes, attrs)))
          .sort((x, y) => x.slot - y.slot);
        const st = await stats(ctx, tenant.slot, list);
        return reply(200, list.map((a) => {
          const completions = st.completions.get(a.id) ?? 0;
          return { ...achievementJson(a, metricName(cfg)), completions, rarity: rarity(completions, st.users) };
        }));
      },
    },
    {
      method: 'get',
      pattern: '/v1/users/:id/achievements',
      handler: async (req) => {
        const u = await readUser(ctx, req);
        const withIncomplete = boolParam(req.query, 'includeIncomplete');
        const list = [...u.cfg.achievementsById.values()]
          .filter((a) => u.fields.has(achievedField(a.slot)) || (withIncomplete && a.status === 'active'))
          .sort((x, y) => x.slot - y.slot);
        const st = await stats(ctx, u.tenant.slot, list);
        return reply(200, list.map((a) => {
          const at = u.fields.get(achievedField(a.slot));
          const completions = st.completions.get(a.id) ?? 0;
          return {
            ...achievementJson(a, metricName(u.cfg), at ? Number(at) : null),
            completions,
            rarity: rarity(completions, st.users),
            progress: progress(u.cfg, a, u.fields),
          };
        }));
      },
    },
    {
      method: 'post',
      pattern: '/v1/achievements/:key/complete',
      body: true,
      handler: (req) => complete(ctx, req),
    },
  ];
}

async function complete(ctx: Ctx, req: Request) {
  const { principal, tenant } = await identify(ctx, req);
  const body = check(validateComplete, jsonBody(req));
  const userId = body.user.id;
  requireUser(principal, userId);
  const zone = zoneOf(body.user);
  const patch = JSON.stringify(userPatch(body.user, zone));
  const key = req.params[0]!;
  const tk = ctx.keys.tenant(tenant.slot);
  return withConfig(ctx.configs, tenant, async (cfg) => {
    const a = cfg.achievementsByKey.get(key);
    if (!a || a.status !== 'active') throw notFound(`Achievement "${key}" not found`);
    if (a.trigger !== 'api') throw invalid(`Achievement "${key}" completes by its ${a.trigger} trigger, not through the API`);
    checkUserAttributes(cfg, body.user);
    const now = ctx.clock.now();
    const date = localDate(now, firstZone(ctx.zones, zoneKey(tenant.slot, userId), zone, cfg.defaultZone));
    const opId = randomUUID();
    const r = await achievementCompleteCall(ctx.engine, tk, {
      ver: cfg.ver, now, userId, patch, program: cfg.program(null), userBoosts: userBoostsArg(cfg.userBoosts.get(userId)), date, opId,
      achievementSlot: a.slot, achievementId: a.id, userAttributes: JSON.stringify(a.userAttributes),
    });
    const completionId = derivedId('completion', userId, a.id);
    switch (r.code) {
      case 'STALE':
        return STALE;
      case 'FILTERED':
        throw invalid(`User "${userId}" does not meet the attribute conditions of "${key}"`);
      case 'BLOCKED':
        throw invalid(`Not enough points in "${cfg.systemsBySlot.get(Number(r.systemSlot))?.key ?? r.systemSlot}"`);
      case 'DONE':
        return reply(200, { completionId, achievement: achievementJson(a, metricName(cfg), r.achievedAt), points: {} });
      default:
        return reply(201, {
          completionId,
          achievement: achievementJson(a, metricName(cfg), now),
          points: pointsResponse(cfg, JSON.parse(r.points) as ScriptPoints, opId, now, date),
        });
    }
  });
}
