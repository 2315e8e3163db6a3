import typia from 'typia';
import type { Ctx } from '../../context';
import { resourceRoutes } from './resource';
import { batchIo } from './batch';
import { ACHIEVEMENTS, createAchievement, updateAchievement } from './writes/achievements';
import type { AdminAchievement, Batch, CreateAchievement, Created, PatchAchievement, Updated } from '../../wire/admin';

/**
 * Achievements (Trophy configures them only in its dashboard). A change is
 * published like any config; the scheduler then completes the achievement for
 * users who already qualify.
 */
export function achievementRoutes(ctx: Ctx) {
  return resourceRoutes(ctx, ACHIEVEMENTS, {
    name: 'achievements', one: 'achievement', many: 'achievements', tag: 'Admin: achievements',
    item: typia.json.schema<AdminAchievement>(), items: typia.json.schema<AdminAchievement[]>(),
    create: batchIo(typia.createValidate<CreateAchievement>(), typia.json.schema<Batch<CreateAchievement>>()), created: typia.json.schema<Created<AdminAchievement>>(),
    update: batchIo(typia.createValidate<PatchAchievement>(), typia.json.schema<Batch<PatchAchievement>>()), updated: typia.json.schema<Updated<AdminAchievement>>(),
    insert: (c, s, item) => createAchievement(ctx, c, s, item),
    change: (c, s, item) => updateAchievement(ctx, c, s, item),
  });
}
