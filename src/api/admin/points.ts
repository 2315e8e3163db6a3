import typia from 'typia';
import type { Ctx } from '../../context';
import { resourceRoutes } from './resource';
import { batchIo } from './batch';
import {
  boostsResource, CreatedSystem, createSystem, insertBoost, insertLevel, insertTrigger, LEVELS, SYSTEMS, TRIGGERS, updateBoost, updateLevel,
  updateSystem, updateTrigger,
} from './writes/points';
import type {
  AdminPointsBoost, AdminPointsLevel, AdminPointsSystem, AdminPointsSystemWithItems, AdminPointsTrigger, Batch, CreateBoost, CreateLevel,
  CreateSystem, CreateTrigger, Created, PatchBoost, PatchLevel, PatchSystem, PatchTrigger, Updated,
} from '../../wire/admin';

export function pointsRoutes(ctx: Ctx) {
  const BOOSTS = boostsResource(ctx);
  const tag = 'Admin: points';
  return [
    ...resourceRoutes(ctx, SYSTEMS, {
      name: 'points_systems', one: 'points system', many: 'points systems', tag,
      item: typia.json.schema<AdminPointsSystem>(), items: typia.json.schema<AdminPointsSystem[]>(),
      create: batchIo(typia.createValidate<CreateSystem>(), typia.json.schema<Batch<CreateSystem>>()), created: typia.json.schema<Created<AdminPointsSystemWithItems>>(),
      update: batchIo(typia.createValidate<PatchSystem>(), typia.json.schema<Batch<PatchSystem>>()), updated: typia.json.schema<Updated<AdminPointsSystem>>(),
      insert: (c, s, item) => createSystem(ctx, c, s, item),
      change: (c, s, item) => updateSystem(ctx, c, s, item),
      // A created system with the levels, boosts and triggers created with it.
      createdJson: (r: CreatedSystem) => ({
        ...SYSTEMS.json(r),
        ...(r.levels ? { levels: r.levels.map(LEVELS.json) } : {}),
        ...(r.boosts ? { boosts: r.boosts.map(BOOSTS.json) } : {}),
        ...(r.triggers ? { triggers: r.triggers.map(TRIGGERS.json) } : {}),
      }),
    }),
    ...resourceRoutes(ctx, TRIGGERS, {
      name: 'points_triggers', one: 'points trigger', many: 'points triggers', tag,
      item: typia.json.schema<AdminPointsTrigger>(), items: typia.json.schema<AdminPointsTrigger[]>(),
      create: batchIo(typia.createValidate<CreateTrigger>(), typia.json.schema<Batch<CreateTrigger>>()), created: typia.json.schema<Created<AdminPointsTrigger>>(),
      update: batchIo(typia.createValidate<PatchTrigger>(), typia.json.schema<Batch<PatchTrigger>>()), updated: typia.json.schema<Updated<AdminPointsTrigger>>(),
      insert: (c, s, item) => insertTrigger(ctx, c, s, item),
      change: (c, s, item) => updateTrigger(ctx, c, s, item),
    }),
    ...resourceRoutes(ctx, LEVELS, {
      name: 'points_levels', one: 'points level', many: 'points levels', tag,
      item: typia.json.schema<AdminPointsLevel>(), items: typia.json.schema<AdminPointsLevel[]>(),
      create: batchIo(typia.createValidate<CreateLevel>(), typia.json.schema<Batch<CreateLevel>>()), created: typia.json.schema<Created<AdminPointsLevel>>(),
      update: batchIo(typia.createValidate<PatchLevel>(), typia.json.schema<Batch<PatchLevel>>()), updated: typia.json.schema<Updated<AdminPointsLevel>>(),
      insert: (c, s, item) => insertLevel(ctx, c, s, item),
      change: (c, s, item) => updateLevel(ctx, c, s, item),
    }),
    ...resourceRoutes(ctx, BOOSTS, {
      name: 'points_boosts', one: 'points boost', many: 'points boosts', tag,
      item: typia.json.schema<AdminPointsBoost>(), items: typia.json.schema<AdminPointsBoost[]>(),
      create: batchIo(typia.createValidate<CreateBoost>(), typia.json.schema<Batch<CreateBoost>>()), created: typia.json.schema<Created<AdminPointsBoost>>(),
      update: batchIo(typia.createValidate<PatchBoost>(), typia.json.schema<Batch<PatchBoost>>()), updated: typia.json.schema<Updated<AdminPointsBoost>>(),
      insert: (c, s, item) => insertBoost(ctx, c, s, item),
      change: (c, s, item) => updateBoost(ctx, c, s, item),
    }),
  ] as const;
}
