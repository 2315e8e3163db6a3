import typia from 'typia';
import type { Ctx } from '../../context';
import { resourceRoutes } from './resource';
import { batchIo } from './batch';
import { boards, createBoard, updateBoard } from './writes/leaderboards';
import type { AdminLeaderboard, Batch, CreateBoard, Created, PatchBoard, Updated } from '../../wire/admin';

/**
 * Leaderboards and their states. Created inactive; asking for `active` or
 * `scheduled` gives whichever the start date allows; `finished` ends it now
 * (its end date becomes today, UTC, unless it was earlier).
 * While not inactive, what it ranks by, its key and its schedule are fixed.
 */
export function leaderboardAdminRoutes(ctx: Ctx) {
  return resourceRoutes(ctx, boards(() => ctx.clock.now()), {
    name: 'leaderboards', one: 'leaderboard', many: 'leaderboards', tag: 'Admin: leaderboards',
    item: typia.json.schema<AdminLeaderboard>(), items: typia.json.schema<AdminLeaderboard[]>(),
    create: batchIo(typia.createValidate<CreateBoard>(), typia.json.schema<Batch<CreateBoard>>()), created: typia.json.schema<Created<AdminLeaderboard>>(),
    update: batchIo(typia.createValidate<PatchBoard>(), typia.json.schema<Batch<PatchBoard>>()), updated: typia.json.schema<Updated<AdminLeaderboard>>(),
    insert: (c, s, item) => createBoard(ctx, c, s, item),
    change: (c, s, item) => updateBoard(ctx, c, s, item),
  });
}
