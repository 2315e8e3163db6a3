import { Ctx, identifyAdmin } from '../../context';
import { invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { eraseUser, exportUser } from '../../store/privacy';

/** A user id from the path: 1 to 255 characters, none of them a control character. */
function userIdParam(req: Request): string {
  const id = req.params[0] ?? '';
  if (id.length === 0 || id.length > 255) throw invalid('User id must be 1 to 255 characters');
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  if (/[\x00-\x1f\x7f]/.test(id)) throw invalid('User id must not contain control characters');
  return id;
}

/** Privacy: erase a user (right to erasure) and export everything held about them (right of access). */
export function adminUserRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'del',
      pattern: '/admin/v1/users/:id',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        return reply(200, await eraseUser(ctx, tenant, userIdParam(req)));
      },
    },
    {
      method: 'get',
      pattern: '/admin/v1/users/:id/export',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        return reply(200, await exportUser(ctx, tenant, userIdParam(req)));
      },
    },
  ];
}
