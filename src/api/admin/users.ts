import typia from 'typia';
import type { Ctx } from '../../context';
import { invalid } from '../../errors';
import { ok, route } from '../define';
import { eraseUser, exportUser } from '../../store/privacy';
import type { ErasedUser, UserExport } from '../../wire/admin';

/** A user id from the path: 1 to 255 characters, none of them a control character. */
function userId(id: string): string {
  if (id.length === 0 || id.length > 255) throw invalid('User id must be 1 to 255 characters');
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  if (/[\x00-\x1f\x7f]/.test(id)) throw invalid('User id must not contain control characters');
  return id;
}

/** Privacy: erase a user (right to erasure) and export everything held about them (right of access). */
export function adminUserRoutes(ctx: Ctx) {
  return [
    route({
      method: 'del', path: '/admin/v1/users/:id', operationId: 'admin_users_erase', tag: 'Admin: users', auth: 'admin',
      summary: 'Erase a user and everything held about them',
      description:
        'Removes the user from Redis and Postgres: profile, totals, points and awards, achievements (rarity no longer counts them), ' +
        'streak and its history, pauses, leaderboard places (the others move up) and history, events, idempotency keys, ' +
        'boosts and application keys bound to them, webhook deliveries and messages about them (device tokens go with the profile). Only a tombstone stays: a SHA-256 of ' +
        'tenant and user id, and the time. Erasing again answers the same; an event for the id afterwards starts a new user. ' +
        '404 for an id never seen nor erased; 422 for an id that is empty, longer than 255 characters or holds control characters.',
      responses: { 200: { description: 'Erased (now or before)', schema: typia.json.schema<ErasedUser>() } },
      handler: async ({ tenant, params }) => ok(await eraseUser(ctx, tenant, userId(params.id))),
    }),
    route({
      method: 'get', path: '/admin/v1/users/:id/export', operationId: 'admin_users_export', tag: 'Admin: users', auth: 'admin',
      summary: 'Everything held about a user, as one document',
      description: 'Profile, metric and points totals, awards, achievements, streak and its history, leaderboard places and history, events, ' +
        'boosts, application keys (never secrets), webhook deliveries and messages about the user. 404 for an unknown user.',
      responses: { 200: { description: 'The document', schema: typia.json.schema<UserExport>() } },
      handler: async ({ tenant, params }) => ok(await exportUser(ctx, tenant, userId(params.id))),
    }),
  ];
}
