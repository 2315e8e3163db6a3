import typia from 'typia';
import type { Ctx } from '../../context';
import { forbidden } from '../../errors';
import type { LiveClientMessage, LiveServerMessage, LiveToken, LiveTokenBody } from '../../wire/live';
import { answer, io, route, type DescribedDef } from '../define';
import type { LiveTokens } from '../../live/tokens';
import { scopeOf } from '../../live/server';


/**
 * `POST /v1/live/tokens`: a short-lived token to open `GET /v1/live` with
 * (`?token=`), for browsers, whose WebSocket cannot send `X-API-KEY`. It
 * carries the key's scope (an admin key's whole tenant, or an application
 * key's user), or with `{"userId": …}` from an admin key, one user's: so a
 * backend holding the admin key hands its browser a token for that user only.
 */
export function liveRoutes(ctx: Ctx, tokens: LiveTokens) {
  return [
    route({
      method: 'post', path: '/v1/live/tokens', operationId: 'live_token', tag: 'Live', auth: 'application',
      summary: 'A short-lived token to open the live WebSocket with (for browsers)',
      description:
        "Carries the key's scope: an admin key's whole tenant, an application key's own user. An admin key may send " +
        '`{"userId": …}` for a token scoped to that user (its own updates, and leaderboards). Expires after LIVE_TOKEN_TTL_SECONDS (default 300). ' +
        'The body is optional.',
      body: io(typia.createValidate<LiveTokenBody>(), typia.json.schema<LiveTokenBody>()),
      bodyOptional: true,
      responses: { 201: { description: 'The token', schema: typia.json.schema<LiveToken>() } },
      handler: async ({ req, principal, tenant, body: sent }) => {
        const body = sent ?? {};
        const scope = scopeOf(principal, tenant, req.apiKey);
        if (body.userId !== undefined) {
          if (scope.userId !== null && scope.userId !== body.userId) throw forbidden('This API key is scoped to another user');
          // An admin key minting for its users' browsers: each user's connections count apart (else all of them would share one key's limit).
          if (scope.userId === null) scope.keyName = `${scope.keyName}/${body.userId}`;
          scope.userId = body.userId;
        }
        const { token, expiresAt } = tokens.mint(scope, ctx.clock.now());
        return answer(201, { token, expiresAt: new Date(expiresAt).toISOString() });
      },
    }),
  ];
}

/** `GET /v1/live`'s query: the token, when no X-API-KEY is sent (browsers). */
interface LiveQuery {
  /** A token from `POST /v1/live/tokens` (short-lived, good only for this). */
  token?: string;
}

/** `GET /v1/live`, served by the WebSocket upgrade (live/server.ts): described here, beside the token route. */
export const liveDescription: DescribedDef = {
  method: 'get', path: '/v1/live', operationId: 'live', tag: 'Live', auth: 'application',
  summary: 'Live updates of users and leaderboards (WebSocket)',
  description:
    'An HTTP/1.1 WebSocket upgrade, authenticated with `X-API-KEY` (and `Tenant-ID`) or `?token=`; a refusal is an ordinary ' +
    'HTTP answer with `{"error": …}` (401, 403, 429 over LIVE_MAX_CONNECTIONS_PER_KEY, 503 while restarting); a plain GET is 426. ' +
    'Then each message is one JSON object: the client sends `{"subscribe": "user:<id>"}`, ' +
    '`{"subscribe": "leaderboard:<key>", "top": N, "around": {"userId": …, "n": N}}` or `{"unsubscribe": …}`; the server answers ' +
    '`{"subscribed": …, "seq": 0}` or `{"error": …, "subscribe": …}` and sends updates with `subscription` and `seq` (one more per update ' +
    'of that subscription: a gap means updates were dropped, resync with one REST read). Application keys subscribe to their own user ' +
    'only (and to boards, as they read them over REST). Close codes: 1012 the server is restarting (reconnect), 4008 too slow ' +
    '(more than LIVE_MAX_BUFFER_BYTES unread for LIVE_MAX_DROPPED messages in a row). The messages are described by `x-laurel-live`.',
  queryDoc: typia.json.schema<LiveQuery>(),
  responses: { 101: { description: 'Switching Protocols: the WebSocket is open' } },
  messages: {
    description: 'JSON text messages on the WebSocket: `client` what a client sends, `server` what it receives.',
    client: typia.json.schema<LiveClientMessage>(),
    server: typia.json.schema<LiveServerMessage>(),
  },
};
