import typia from 'typia';
import type { Ctx } from '../../context';
import type { Route } from '../../http/server';
import { batchRoute, readDeleteRoutes } from './resource';
import {
  boostsResource, CreatedSystem, createSystem, insertBoost, insertLevel, insertTrigger, LEVELS, SYSTEMS, TRIGGERS, updateBoost, updateLevel,
  updateSystem, updateTrigger,
} from './writes/points';
import type { CreateBoost, CreateLevel, CreateSystem, CreateTrigger, PatchBoost, PatchLevel, PatchSystem, PatchTrigger } from '../../wire/admin';

export function pointsRoutes(ctx: Ctx): Route[] {
  const BOOSTS = boostsResource(ctx);
  return [
    ...readDeleteRoutes(ctx, SYSTEMS),
    batchRoute(
      ctx,
      SYSTEMS,
      'post',
      typia.createValidate<CreateSystem>(),
      (c, s, item) => createSystem(ctx, c, s, item),
      (r: CreatedSystem) => ({
        ...(SYSTEMS.json(r) as object),
        ...(r.levels ? { levels: r.levels.map(LEVELS.json) } : {}),
        ...(r.boosts ? { boosts: r.boosts.map(BOOSTS.json) } : {}),
        ...(r.triggers ? { triggers: r.triggers.map(TRIGGERS.json) } : {}),
      }),
    ),
    batchRoute(ctx, SYSTEMS, 'patch', typia.createValidate<PatchSystem>(), (c, s, item) => updateSystem(ctx, c, s, item)),

    ...readDeleteRoutes(ctx, TRIGGERS),
    batchRoute(ctx, TRIGGERS, 'post', typia.createValidate<CreateTrigger>(), (c, s, item) => insertTrigger(ctx, c, s, item)),
    batchRoute(ctx, TRIGGERS, 'patch', typia.createValidate<PatchTrigger>(), (c, s, item) => updateTrigger(ctx, c, s, item)),

    ...readDeleteRoutes(ctx, LEVELS),
    batchRoute(ctx, LEVELS, 'post', typia.createValidate<CreateLevel>(), (c, s, item) => insertLevel(ctx, c, s, item)),
    batchRoute(ctx, LEVELS, 'patch', typia.createValidate<PatchLevel>(), (c, s, item) => updateLevel(ctx, c, s, item)),

    ...readDeleteRoutes(ctx, BOOSTS),
    batchRoute(ctx, BOOSTS, 'post', typia.createValidate<CreateBoost>(), (c, s, item) => insertBoost(ctx, c, s, item)),
    batchRoute(ctx, BOOSTS, 'patch', typia.createValidate<PatchBoost>(), (c, s, item) => updateBoost(ctx, c, s, item)),
  ];
}
