import { randomBytes } from 'node:crypto';
import uWS from 'uWebSockets.js';
import { badRequest, HttpError, isUnavailable, unavailable } from '../errors';
import { storable, UNSTORABLE_RULE } from './text';
import type { Logger } from '../log';
import { routeRecorder } from '../metrics';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'del';

/** What a handler sees: everything is copied out of uWS before the first await. */
export interface Request {
  method: string;
  path: string;
  /** Path parameters in pattern order, URL-decoded. */
  params: string[];
  query: URLSearchParams;
  apiKey: string;
  tenantId: string;
  idempotencyKey: string;
  contentType: string;
  authorization: string;
  /** `Accept-Encoding` (the console's static files are served gzipped when it allows). */
  acceptEncoding: string;
  /** `If-Match` (a config version on PUT /admin/v1/config). */
  ifMatch: string;
  /** The caller's `X-Request-Id` when acceptable, else one made here; echoed in the response. */
  requestId: string;
  /** The raw body (empty when the route reads none). */
  body: Buffer;
}

export interface Reply {
  status: number;
  /** Already-serialized JSON (or, with a Content-Type header, that content). */
  body: string | Buffer;
  headers?: Record<string, string>;
}

export type Handler = (req: Request) => Promise<Reply> | Reply;

export interface Route {
  method: Method;
  /** uWS pattern, e.g. `/v1/users/:id`. */
  pattern: string;
  handler: Handler;
  /** Whether the route reads a request body. */
  body?: boolean;
  /**
   * Trophy documents 400 for this operation (an unreadable body: malformed
   * JSON, bad percent-encoding). On every other route such a request is
   * answered 422, the status Trophy documents there for invalid input.
   */
  documents400?: boolean;
  /** Largest body this route accepts (default: the server's MAX_BODY_BYTES). */
  maxBodyBytes?: number;
}

export const reply = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body: JSON.stringify(value),
  headers,
});

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 204: '204 No Content',
  400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found',
  405: '405 Method Not Allowed', 409: '409 Conflict', 413: '413 Payload Too Large',
  415: '415 Unsupported Media Type', 426: '426 Upgrade Required', 422: '422 Unprocessable Entity', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

/** uSockets' listen option that leaves SO_REUSEPORT off. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

const METHOD_NAME: Record<Method, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', del: 'DELETE' };

export interface HttpServer {
  /**
   * `shared`: let other sockets with SO_REUSEPORT (the workers of one
   * supervisor) listen on the same port. Otherwise the port is taken
   * exclusively, so a second server started on it fails instead of silently
   * sharing its connections.
   */
  listen(host: string, port: number, shared?: boolean): Promise<number>;
  /** Stop accepting connections, then wait (up to `graceMs`) for in-flight requests. */
  close(graceMs?: number): Promise<void>;
  inFlight(): number;
}

interface ResState {
  aborted: boolean;
  requestId: string;
  /** performance.now() on arrival. */
  start: number;
  record: (status: number, seconds: number) => void;
  method: string;
  route: string;
  /** A HEAD request: the answer carries no body. */
  head?: boolean;
}

/** Printable ASCII without spaces, at most 128 characters (it goes into logs and a header). */
const REQUEST_ID = /^[!-~]{1,128}$/;
/** Made-up ids: a per-process random tag and a counter (unique, and cheaper than a UUID). */
const ID_TAG = randomBytes(6).toString('hex');
let idSeq = 0;
function requestIdOf(header: string): string {
  return header && REQUEST_ID.test(header) ? header : `${ID_TAG}-${(++idSeq).toString(36)}`;
}

const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export interface HttpServerOptions {
  maxBodyBytes: number;
  log: Logger;
  /** Registers more on the uWS app (the WebSocket endpoint), before the catch-all. */
  extend?: (app: uWS.TemplatedApp) => void;
  /** Paths served only as WebSocket upgrades: a plain request there is 426. */
  upgradeOnly?: string[];
}

export function createHttpServer(routes: Route[], opts: HttpServerOptions): HttpServer {
  const app = uWS.App();
  let inFlight = 0;
  let closing = false;
  let listenSocket: uWS.us_listen_socket | null = null;
  const drainWaiters: Array<() => void> = [];
  // Levels are fixed for the process's life: decide once.
  const debug = opts.log.isLevelEnabled('debug');

  const finish = () => {
    inFlight--;
    if (inFlight === 0) drainWaiters.splice(0).forEach((w) => w());
  };

  const write = (res: uWS.HttpResponse, state: ResState, r: Reply, close = false) => {
    if (state.aborted) return;
    state.aborted = true; // a response is written once
    res.cork(() => {
      res.writeStatus(STATUS_TEXT[r.status] ?? `${r.status} Unknown`);
      if (!r.headers?.['Content-Type']) res.writeHeader('Content-Type', 'application/json');
      res.writeHeader('X-Request-Id', state.requestId);
      if (r.headers) for (const k in r.headers) res.writeHeader(k, r.headers[k]!);
      if (!state.head) res.end(r.body, close || closing);
      // HEAD: headers only (endWithoutBody ignores its close flag in this uWS; an empty end honours it).
      else if (close || closing) res.end('', true);
      else res.endWithoutBody();
    });
    const seconds = (performance.now() - state.start) / 1000;
    state.record(r.status, seconds);
    if (debug) opts.log.debug('request', { requestId: state.requestId, method: state.method, route: state.route, status: r.status, ms: Math.round(seconds * 1e5) / 100 });
  };

  const errorReply = (err: unknown, state: ResState, documents400 = false): Reply => {
    if (err instanceof HttpError) return reply(err.status === 400 && !documents400 ? 422 : err.status, { error: err.message }, err.headers);
    if (isUnavailable(err)) {
      // Not logged per request: the Redis client logs the outage once (debug lines carry the 503s).
      const e = unavailable();
      return reply(e.status, { error: e.message }, e.headers);
    }
    opts.log.error('unhandled error', {
      requestId: state.requestId, method: state.method, route: state.route, err: err instanceof Error ? err.stack : String(err),
    });
    return reply(500, { error: 'Internal server error' });
  };

  const run = (res: uWS.HttpResponse, state: ResState, route: Route, req: Request) => {
    let out: Reply | Promise<Reply>;
    try {
      out = route.handler(req);
    } catch (err) {
      write(res, state, errorReply(err, state, route.documents400));
      finish();
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (r) => write(res, state, r),
        (err) => write(res, state, errorReply(err, state, route.documents400)),
      ).finally(finish);
    } else {
      write(res, state, out);
      finish();
    }
  };

  /**
   * 400 for a request whose body length is ambiguous (RFC 9112 §6.3), then
   * close. Answered on the next turn, not here: uWS 20.30 goes on to parse and
   * dispatch bytes already received behind this request even when told to
   * close, and those bytes are exactly what such a request may smuggle. A
   * response still pending when uWS parses them makes it close the connection
   * instead, so nothing behind this request is ever run.
   */
  const refuseFraming = (res: uWS.HttpResponse, state: ResState) => {
    setImmediate(() => {
      write(res, state, reply(400, { error: 'Conflicting Content-Length headers' }), true);
      finish();
    });
  };

  for (const route of routes) {
    const nParams = (route.pattern.match(/:/g) ?? []).length;
    const method = METHOD_NAME[route.method];
    const record = routeRecorder(method, route.pattern);
    app[route.method](route.pattern, (res, uReq) => {
      const state: ResState = {
        aborted: false, requestId: requestIdOf(uReq.getHeader('x-request-id')), start: performance.now(), record, method, route: route.pattern,
      };
      res.onAborted(() => {
        state.aborted = true;
      });
      inFlight++;
      if (badFraming(uReq)) {
        refuseFraming(res, state);
        return;
      }
      // Everything from uReq must be read now: it is invalid after this callback returns.
      const params: string[] = [];
      let badParam: Reply | null = null;
      for (let i = 0; i < nParams; i++) {
        try {
          params.push(decodeURIComponent(uReq.getParameter(i)));
        } catch {
          badParam = errorReply(badRequest('Malformed percent-encoding in the path'), state, route.documents400);
        }
      }
      badParam ??= refusedInput(params, uReq.getQuery() ?? '');
      const req: Request = {
        method,
        path: uReq.getUrl(),
        params,
        query: new URLSearchParams(uReq.getQuery() ?? ''),
        apiKey: uReq.getHeader('x-api-key'),
        tenantId: uReq.getHeader('tenant-id'),
        idempotencyKey: uReq.getHeader('idempotency-key'),
        contentType: uReq.getHeader('content-type'),
        authorization: uReq.getHeader('authorization'),
        acceptEncoding: uReq.getHeader('accept-encoding'),
        ifMatch: uReq.getHeader('if-match'),
        requestId: state.requestId,
        body: EMPTY,
      };
      if (badParam) {
        write(res, state, badParam);
        finish();
        return;
      }
      if (!route.body) {
        run(res, state, route, req);
        return;
      }
      const maxBody = route.maxBodyBytes ?? opts.maxBodyBytes;
      const declared = Number(uReq.getHeader('content-length') || '0');
      if (declared > maxBody) {
        // Refuse before reading: the connection is closed so the rest is never read.
        write(res, state, tooLarge(maxBody), true);
        finish();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.onData((chunk, isLast) => {
        if (state.aborted) return;
        size += chunk.byteLength;
        if (size > maxBody) {
          write(res, state, tooLarge(maxBody), true);
          finish();
          return;
        }
        // uWS reuses the chunk's memory after this callback: copy it.
        chunks.push(Buffer.from(new Uint8Array(chunk)));
        if (isLast) {
          req.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          run(res, state, route, req);
        }
      });
    });
  }

  opts.extend?.(app);

  // Anything unmatched: 405 when the path exists under another method, else 404.
  const known = routes.map((r) => ({ method: METHOD_NAME[r.method], re: patternRegex(r.pattern) }));
  const unmatched = new Map<string, ReturnType<typeof routeRecorder>>();
  app.any('/*', (res, uReq) => {
    const path = uReq.getUrl();
    const method = uReq.getMethod().toUpperCase();
    const allowed = [...new Set(known.filter((k) => k.re.test(path)).map((k) => k.method))];
    const label = KNOWN_METHODS.has(method) ? method : 'OTHER';
    const state: ResState = {
      aborted: false, requestId: requestIdOf(uReq.getHeader('x-request-id')), start: performance.now(), record: unmatched.get(label) ?? unmatched.set(label, routeRecorder(label, 'unmatched')).get(label)!, method: label, route: 'unmatched', head: method === 'HEAD',
    };
    res.onAborted(() => (state.aborted = true));
    if (badFraming(uReq)) {
      inFlight++;
      refuseFraming(res, state);
      return;
    }
    if (method === 'GET' && opts.upgradeOnly?.includes(path)) {
      // As any keyed route: no credentials at all is 401 first (an upgrade checks them for real).
      const credentials = uReq.getHeader('x-api-key') || new URLSearchParams(uReq.getQuery() ?? '').get('token');
      if (!credentials) write(res, state, reply(401, { error: 'Missing or invalid API key' }));
      else write(res, state, reply(426, { error: `${path} is a WebSocket endpoint: send an Upgrade request` }, { Upgrade: 'websocket' }));
    } else if (allowed.length > 0 && !allowed.includes(method)) {
      write(res, state, reply(405, { error: `Method ${method} is not allowed on ${path}` }, { Allow: allowed.join(', ') }));
    } else {
      write(res, state, reply(404, { error: `No route for ${method} ${path}` }));
    }
  });

  return {
    listen(host, port, shared = false) {
      return new Promise((resolve, reject) => {
        // uWS listens with SO_REUSEPORT unless given LIBUS_LISTEN_EXCLUSIVE_PORT (the typings lack this overload).
        const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (s: uWS.us_listen_socket | false) => void) => void;
        listen.call(app, host, port, shared ? 0 : LIBUS_LISTEN_EXCLUSIVE_PORT, (sock) => {
          if (!sock) return reject(new Error(`port ${port} on ${host} is already in use`));
          listenSocket = sock;
          resolve(uWS.us_socket_local_port(sock));
        });
      });
    },
    async close(graceMs = 10_000) {
      closing = true;
      if (listenSocket) uWS.us_listen_socket_close(listenSocket);
      listenSocket = null;
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          drainWaiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      // Then drop idle keep-alive connections (present at runtime, absent from the typings).
      (app as unknown as { close?: () => void }).close?.();
    },
    inFlight: () => inFlight,
  };
}

const EMPTY = Buffer.alloc(0);

/** Ids and keys in paths are at most this long everywhere (so is what they name). */
export const MAX_PATH_PARAM = 255;
/** `%00` in a query string (decoded values can hold no lone surrogate: invalid UTF-8 becomes U+FFFD). */
const QUERY_NUL = /%00/i;

/** 422 for path parameters or a query the durable store could not hold, else null. */
function refusedInput(params: string[], query: string): Reply | null {
  for (const p of params) {
    if (p.length > MAX_PATH_PARAM) return reply(422, { error: `Path parameters must be at most ${MAX_PATH_PARAM} characters` });
    if (!storable(p)) return reply(422, { error: `Path parameters ${UNSTORABLE_RULE}` });
  }
  if (QUERY_NUL.test(query)) return reply(422, { error: `Query parameters ${UNSTORABLE_RULE}` });
  return null;
}

/**
 * Whether the request has several Content-Length lines that differ (uWS
 * frames the body by the first and `getHeader` shows only that one). All
 * header lines are walked only when there is a Content-Length at all.
 */
function badFraming(uReq: uWS.HttpRequest): boolean {
  const first = uReq.getHeader('content-length');
  if (!first) return false;
  let conflict = false;
  uReq.forEach((k, v) => {
    if (k === 'content-length' && v !== first) conflict = true;
  });
  return conflict;
}

function tooLarge(max: number): Reply {
  return reply(413, { error: `Request body exceeds ${max} bytes` });
}

function patternRegex(pattern: string): RegExp {
  const src = pattern
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${src}/?$`);
}
