import typia from 'typia';
import type uWS from 'uWebSockets.js';
import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { LiveClientMessage } from '../wire/live';
import { HttpError, isUnavailable, unavailable } from '../errors';
import { describe } from '../http/body';
import { splitKey } from '../auth/api-keys';
import { Conn, LiveHub } from './hub';
import { LiveScope, LiveTokens } from './tokens';

const validateMessage = typia.createValidate<LiveClientMessage>();

/** What uWS keeps with each socket. */
interface SocketData {
  conn: Conn;
  /** A connection's messages are answered in order (a subscribe may wait on Redis). */
  chain: Promise<void>;
}

/** The path of the WebSocket endpoint. */
export const LIVE_PATH = '/v1/live';

/** Rate-limit id of the ADMIN_API_KEY from the environment (as in auth.ts): connection limits count per key. */
const ENV_ADMIN = 'env-admin';

/**
 * `GET /v1/live`: the WebSocket endpoint. The upgrade request is
 * authenticated like any request (`X-API-KEY`, `Tenant-ID`) or with
 * `?token=` (see tokens.ts); a refusal is an ordinary HTTP answer with
 * `{"error": …}`. Heartbeats are uWS's: pings when idle, closed after
 * `idleTimeoutSeconds` of silence.
 */
export function registerLive(app: uWS.TemplatedApp, ctx: Ctx, hub: LiveHub, tokens: LiveTokens): void {
  const cfg = ctx.config.live;
  app.ws<SocketData>(LIVE_PATH, {
    maxPayloadLength: 4096,
    idleTimeout: cfg.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    // The hub bounds each client's unsent data itself (and closes with a reason);
    // uWS's own limit sits above it so that the close frame itself is never dropped.
    maxBackpressure: cfg.maxBufferBytes * 2 + 65_536,
    closeOnBackpressureLimit: 0,

    upgrade: (res, req, context) => {
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      // Everything from req is read now: it is invalid after this callback returns.
      const wsKey = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const apiKey = req.getHeader('x-api-key');
      const tenantHeader = req.getHeader('tenant-id');
      const token = new URLSearchParams(req.getQuery() ?? '').get('token') ?? '';
      const refuse = (status: number, error: string) => {
        if (aborted) return;
        res.cork(() => {
          res.writeStatus(STATUS[status] ?? `${status} Error`).writeHeader('Content-Type', 'application/json').end(JSON.stringify({ error }));
        });
      };
      authorize(ctx, tokens, apiKey, tenantHeader, token).then(
        ({ scope, tenant }) => {
          if (aborted) return;
          if (hub.closing) return refuse(503, 'Server restarting: reconnect');
          const conn = hub.admit(scope, tenant);
          if (typeof conn === 'string') return refuse(429, conn);
          res.cork(() => res.upgrade<SocketData>({ conn, chain: Promise.resolve() }, wsKey, protocol, extensions, context));
        },
        (err) => {
          if (err instanceof HttpError) return refuse(err.status, err.message);
          if (!isUnavailable(err)) ctx.log.error('live upgrade failed', { err: err instanceof Error ? err.stack : String(err) });
          const e = isUnavailable(err) ? unavailable() : null;
          refuse(e ? e.status : 500, e ? e.message : 'Internal server error');
        },
      );
    },

    open: (ws) => {
      const { conn } = ws.getUserData();
      conn.socket = {
        buffered: () => ws.getBufferedAmount(),
        write: (text) => void ws.send(text, false),
        close: (code, reason) => ws.end(code, reason),
      };
    },

    message: (ws, data, isBinary) => {
      const d = ws.getUserData();
      const conn = d.conn;
      // The buffer is valid only during this callback: decode it now.
      const text = isBinary ? null : Buffer.from(data).toString('utf8');
      d.chain = d.chain.then(() => handleMessage(hub, conn, text)).then((answer) => {
        // Never write to a closed socket.
        if (conn.closed) return;
        ws.send(JSON.stringify(answer), false);
        if (typeof answer.subscribed === 'string') hub.acknowledged(conn, answer.subscribed);
      });
    },

    drain: (ws) => hub.drained(ws.getUserData().conn),

    close: (ws) => {
      hub.release(ws.getUserData().conn);
    },
  });
}

const STATUS: Record<number, string> = {
  400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

async function authorize(ctx: Ctx, tokens: LiveTokens, apiKey: string, tenantHeader: string, token: string): Promise<{ scope: LiveScope; tenant: Tenant }> {
  if (token) {
    const scope = tokens.verify(token, ctx.clock.now());
    if ('refused' in scope) throw new HttpError(401, scope.refused);
    const tenant = await ctx.tenants.getById(scope.tenantId);
    if (!tenant) throw new HttpError(401, 'Invalid live token: its tenant no longer exists');
    return { scope, tenant };
  }
  const principal = await ctx.auth.authenticate(apiKey);
  const tenant = await ctx.tenants.resolve(principal, tenantHeader);
  return { scope: scopeOf(principal, tenant, apiKey), tenant };
}

/** The live scope of an authenticated key. */
export function scopeOf(principal: { kind: 'admin' } | { kind: 'application'; userId: string }, tenant: Tenant, apiKey: string): LiveScope {
  return { tenantId: tenant.id, userId: principal.kind === 'application' ? principal.userId : null, keyName: splitKey(apiKey)?.prefix ?? ENV_ADMIN };
}

async function handleMessage(hub: LiveHub, conn: Conn, text: string | null): Promise<Record<string, unknown>> {
  if (text === null) return { error: 'Messages are JSON text' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'Malformed JSON' };
  }
  const v = validateMessage(value);
  if (!v.success) return { error: `Send {"subscribe": …} or {"unsubscribe": …}: ${describe(v.errors, 'message')}` };
  const msg = v.data;
  if ('subscribe' in msg) {
    try {
      return await hub.subscribe(conn, msg);
    } catch (err) {
      return { error: isUnavailable(err) ? unavailable().message : 'Could not subscribe', subscribe: msg.subscribe };
    }
  }
  return hub.unsubscribe(conn, msg.unsubscribe);
}
