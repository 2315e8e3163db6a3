import typia from 'typia';
import { WebSocket, WebSocketServer } from 'ws';
import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { LiveClientMessage } from '../wire/live';
import { HttpError, isUnavailable, unavailable } from '../errors';
import { errorAnswer } from '../http/errors';
import { describe } from '../http/body';
import type { UpgradeHandler } from '../http/server';
import { answerRaw } from '../http/wire';
import { splitKey } from '../auth/api-keys';
import { Conn, LiveHub } from './hub';
import { LiveScope, LiveTokens } from './tokens';

const validateMessage = typia.createValidate<LiveClientMessage>();

/** The path of the WebSocket endpoint. */
export const LIVE_PATH = '/v1/live';

/** Rate-limit id of the ADMIN_API_KEY from the environment (as in auth.ts): connection limits count per key. */
const ENV_ADMIN = 'env-admin';

/** A client message larger than this closes the connection (1009). */
const MAX_MESSAGE_BYTES = 4096;
/** What a WebSocket handshake must carry (RFC 6455 §4.2.1), checked before a connection is admitted. */
const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;

/**
 * `GET /v1/live`: the WebSocket endpoint, as an upgrade handler for the HTTP
 * server. The upgrade request is authenticated like any request
 * (`X-API-KEY`, `Tenant-ID`) or with `?token=` (see tokens.ts); a refusal is
 * an ordinary HTTP answer with `{"error": …}`. Heartbeats: see Heartbeat.
 */
export function liveUpgrade(ctx: Ctx, hub: LiveHub, tokens: LiveTokens): UpgradeHandler {
  // noServer: the HTTP server hands over upgrades; no compression (its per-socket memory is the largest cost).
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false, clientTracking: false });
  const heartbeat = new Heartbeat(ctx.config.live.idleTimeoutSeconds * 1000);

  const open = (ws: WebSocket, conn: Conn) => {
    /** A connection's messages are answered in order (a subscribe may wait on Redis). */
    let chain = Promise.resolve();
    // Called as each message reaches the kernel: views held back go out once the client has read enough.
    // (The socket's 'drain' alone would not do: it comes only after its buffer passed its own high-water mark.)
    const written = () => hub.drained(conn);
    conn.socket = {
      buffered: () => ws.bufferedAmount,
      write: (text) => ws.send(text, written),
      close: (code, reason) => ws.close(code, reason),
    };
    heartbeat.add(ws);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const text = isBinary ? null : data.toString('utf8');
      chain = chain.then(() => handleMessage(hub, conn, text)).then((answer) => {
        // Never write to a closed socket.
        if (conn.closed) return;
        ws.send(JSON.stringify(answer));
        if (typeof answer.subscribed === 'string') hub.acknowledged(conn, answer.subscribed);
      });
    });
    // Protocol errors (a message too large, bad framing) close the connection with their code; nothing to add.
    ws.on('error', () => undefined);
    ws.once('close', () => {
      heartbeat.remove(ws);
      hub.release(conn);
    });
  };

  return (req, socket, head, query) => {
    let gone = false;
    const onError = () => socket.destroy();
    const onClose = () => (gone = true);
    socket.on('error', onError);
    socket.once('close', onClose);
    const version = req.headers['sec-websocket-version'];
    if (!WS_KEY.test(String(req.headers['sec-websocket-key'] ?? '')) || (version !== '13' && version !== '8')) {
      return answerRaw(socket, 400, JSON.stringify({ error: 'Not a WebSocket handshake (Sec-WebSocket-Key, Sec-WebSocket-Version: 13)' }), { 'Sec-WebSocket-Version': '13' });
    }
    const apiKey = String(req.headers['x-api-key'] ?? '');
    const tenantHeader = String(req.headers['tenant-id'] ?? '');
    const token = new URLSearchParams(query).get('token') ?? '';
    const refuse = (status: number, error: string) => {
      if (!gone) answerRaw(socket, status, JSON.stringify({ error }));
    };
    authorize(ctx, tokens, apiKey, tenantHeader, token).then(
      ({ scope, tenant }) => {
        if (gone) return;
        if (hub.closing) return refuse(503, 'Server restarting: reconnect');
        const conn = hub.admit(scope, tenant);
        if (typeof conn === 'string') return refuse(429, conn);
        let opened = false;
        // These closures share this scope, which holds the request: kept, they would keep it as long as the connection.
        socket.off('error', onError);
        socket.off('close', onClose);
        // Synchronous here (no verifyClient): a handshake ws refuses after all leaves the place free again.
        wss.handleUpgrade(req, socket, head, (ws) => {
          opened = true;
          open(ws, conn);
        });
        if (!opened) hub.release(conn);
      },
      (err) => {
        const a = errorAnswer(err);
        if (a) return refuse(a.status, a.message);
        ctx.log.error('live upgrade failed', { err: err instanceof Error ? err.stack : String(err) });
        refuse(500, 'Internal server error');
      },
    );
  };
}

/**
 * Pings quiet connections and closes silent ones, with one timer for all of
 * them (a timer per connection would cost memory on every idle socket). It
 * runs every half idle timeout: a connection not heard from since the last
 * run is pinged; one still silent two runs later (an idle timeout to 1.5
 * times it since it was last heard, pong included) is closed.
 */
class Heartbeat {
  private readonly sockets = new Set<WebSocket>();
  /** Runs in a row without a word from the socket. */
  private readonly silent = new Map<WebSocket, number>();
  private timer: NodeJS.Timeout | null = null;
  /** One listener shared by every socket (emitters call it with the socket as `this`). */
  private readonly heard: (this: WebSocket) => void;

  constructor(private readonly idleMs: number) {
    const silent = this.silent;
    this.heard = function heard(this: WebSocket) {
      silent.delete(this);
    };
  }

  add(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('pong', this.heard);
    ws.on('message', this.heard);
    this.timer ??= setInterval(() => this.check(), this.idleMs / 2);
  }

  remove(ws: WebSocket): void {
    this.sockets.delete(ws);
    this.silent.delete(ws);
    if (this.sockets.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private check(): void {
    for (const ws of this.sockets) {
      const runs = (this.silent.get(ws) ?? 0) + 1;
      this.silent.set(ws, runs);
      if (runs === 1) ws.ping();
      else if (runs >= 3) ws.terminate();
    }
  }
}

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
