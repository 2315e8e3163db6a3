import { randomBytes } from 'node:crypto';
import uWS from 'uWebSockets.js';
import { HttpError, isUnavailable, unavailable } from './errors';
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
  /** The caller's `X-Request-Id` when acceptable, else one made here; echoed in the response. */
  requestId: string;
  /** The raw body (empty when the route reads none). */
  body: Buffer;
}

export interface Reply {
  status: number;
  /** Already-serialized JSON. */
  body: string;
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

const METHOD_NAME: Record<Method, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', del: 'DELETE' };

export interface HttpServer {
  listen(host: string, port: number): Promise<number>;
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
      res.end(r.body, close || closing);
    });
    const seconds = (performance.now() - state.start) / 1000;
    state.record(r.status, seconds);
    if (debug) opts.log.debug('request', { requestId: state.requestId, method: state.method, route: state.route, status: r.status, ms: Math.round(seconds * 1e5) / 100 });
  };

  const errorReply = (err: unknown, state: ResState): Reply => {
    if (err instanceof HttpError) return reply(err.status, { error: err.message }, err.headers);
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

  const run = (res: uWS.HttpResponse, state: ResState, handler: Handler, req: Request) => {
    let out: Reply | Promise<Reply>;
    try {
      out = handler(req);
    } catch (err) {
      write(res, state, errorReply(err, state));
      finish();
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (r) => write(res, state, r),
        (err) => write(res, state, errorReply(err, state)),
      ).finally(finish);
    } else {
      write(res, state, out);
      finish();
    }
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
      // Everything from uReq must be read now: it is invalid after this callback returns.
      const params: string[] = [];
      let badParam: Reply | null = null;
      for (let i = 0; i < nParams; i++) {
        try {
          params.push(decodeURIComponent(uReq.getParameter(i)));
        } catch {
          badParam = reply(400, { error: 'Malformed percent-encoding in the path' });
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
        requestId: state.requestId,
        body: EMPTY,
      };
      if (badParam) {
        write(res, state, badParam);
        finish();
        return;
      }
      if (!route.body) {
        run(res, state, route.handler, req);
        return;
      }
      const declared = Number(uReq.getHeader('content-length') || '0');
      if (declared > opts.maxBodyBytes) {
        // Refuse before reading: the connection is closed so the rest is never read.
        write(res, state, tooLarge(opts.maxBodyBytes), true);
        finish();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.onData((chunk, isLast) => {
        if (state.aborted) return;
        size += chunk.byteLength;
        if (size > opts.maxBodyBytes) {
          write(res, state, tooLarge(opts.maxBodyBytes), true);
          finish();
          return;
        }
        // uWS reuses the chunk's memory after this callback: copy it.
        chunks.push(Buffer.from(new Uint8Array(chunk)));
        if (isLast) {
          req.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          run(res, state, route.handler, req);
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
      aborted: false, requestId: requestIdOf(uReq.getHeader('x-request-id')), start: performance.now(), record: unmatched.get(label) ?? unmatched.set(label, routeRecorder(label, 'unmatched')).get(label)!, method: label, route: 'unmatched',
    };
    res.onAborted(() => (state.aborted = true));
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
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (sock) => {
          if (!sock) return reject(new Error(`Could not listen on ${host}:${port}`));
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
