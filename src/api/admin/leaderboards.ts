import typia from 'typia';
import type { Ctx } from '../../context';
import type { Route } from '../../http/server';
import { batchRoute, readDeleteRoutes } from './resource';
import { boards, createBoard, updateBoard } from './writes/leaderboards';
import type { CreateBoard, PatchBoard } from '../../wire/admin';

/**
 * Leaderboards and their states. Created inactive; asking for `active` or
 * `scheduled` gives whichever the start date allows; `finished` ends it now
 * (its end date becomes today, UTC, unless it was earlier).
 * While not inactive, what it ranks by, its key and its schedule are fixed.
 */
export function leaderboardAdminRoutes(ctx: Ctx): Route[] {
  const BOARDS = boards(() => ctx.clock.now());
  return [
    ...readDeleteRoutes(ctx, BOARDS),
    batchRoute(ctx, BOARDS, 'post', typia.createValidate<CreateBoard>(), (c, s, item) => createBoard(ctx, c, s, item)),
    batchRoute(ctx, BOARDS, 'patch', typia.createValidate<PatchBoard>(), (c, s, item) => updateBoard(ctx, c, s, item)),
  ];
}
