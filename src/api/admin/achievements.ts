import typia from 'typia';
import type { Ctx } from '../../context';
import type { Route } from '../../http/server';
import { batchRoute, readDeleteRoutes } from './resource';
import { ACHIEVEMENTS, createAchievement, updateAchievement } from './writes/achievements';
import type { CreateAchievement, PatchAchievement } from '../../wire/admin';

/**
 * Achievements (Trophy configures them only in its dashboard). A change is
 * published like any config; the scheduler then completes the achievement for
 * users who already qualify.
 */
export function achievementRoutes(ctx: Ctx): Route[] {
  return [
    ...readDeleteRoutes(ctx, ACHIEVEMENTS),
    batchRoute(ctx, ACHIEVEMENTS, 'post', typia.createValidate<CreateAchievement>(), (c, s, item) => createAchievement(ctx, c, s, item)),
    batchRoute(ctx, ACHIEVEMENTS, 'patch', typia.createValidate<PatchAchievement>(), (c, s, item) => updateAchievement(ctx, c, s, item)),
  ];
}
