import typia from 'typia';
import type { Ctx } from '../../context';
import { identify } from '../../context';
import { check, jsonBody } from '../../http/body';
import { forbidden } from '../../errors';
import { reply, Route } from '../../http/server';
import type { LiveTokenBody } from '../../wire/live';
import type { LiveTokens } from '../../live/tokens';
import { scopeOf } from '../../live/server';

const validateBody = typia.createValidate<LiveTokenBody>();

/**
 * `POST /v1/live/tokens`: a short-lived token to open `GET /v1/live` with
 * (`?token=`), for browsers, whose WebSocket cannot send `X-API-KEY`. It
 * carries the key's scope (an admin key's whole tenant, or an application
 * key's user), or with `{"userId": …}` from an admin key, one user's: so a
 * backend holding the admin key hands its browser a token for that user only.
 */
export function liveRoutes(ctx: Ctx, tokens: LiveTokens): Route[] {
  return [
    {
      method: 'post',
      pattern: '/v1/live/tokens',
      body: true,
      handler: async (req) => {
        const { principal, tenant } = await identify(ctx, req);
        // The body is optional.
        const body = req.body.length ? check(validateBody, jsonBody(req)) : {};
        const scope = scopeOf(principal, tenant, req.apiKey);
        if (body.userId !== undefined) {
          if (scope.userId !== null && scope.userId !== body.userId) throw forbidden('This API key is scoped to another user');
          // An admin key minting for its users' browsers: each user's connections count apart (else all of them would share one key's limit).
          if (scope.userId === null) scope.keyName = `${scope.keyName}/${body.userId}`;
          scope.userId = body.userId;
        }
        const { token, expiresAt } = tokens.mint(scope, ctx.clock.now());
        return reply(201, { token, expiresAt: new Date(expiresAt).toISOString() });
      },
    },
  ];
}
