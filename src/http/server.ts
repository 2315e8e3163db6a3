import { randomBytes } from 'node:crypto';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { badRequest } from '../errors';
import { errorAnswer } from './errors';
import { storable, UNSTORABLE_RULE } from './text';
import type { Logger } from '../observability/log';
import { routeRecorder } from '../observability/metrics';
import { Router } from './router';
import { answerRaw, closeGently, ParseError, parseErrorAnswer, requestLine } from './wire';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'del';

/** What a handler sees. */
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
  /** Path pattern, e.g. `/v1/users/:id` or `/console/*` (see router.ts). */
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

const METHOD_NAME: Record<Method, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', del: 'DELETE' };

/** Header lines a request may carry (Host included); more is 431. */
export const MAX_HEADER_LINES = 100;
/** The request line and header lines together, in bytes; more is 431 (Node's default). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** A request's head must arrive within this, and the whole request within REQUEST_TIMEOUT_MS (else 408). */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** An idle keep-alive connection is closed after this; advertised in `Keep-Alive: timeout=5`. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export interface HttpServer {
  /**
   * `shared`: the workers of one supervisor (cluster) listen on the same port
   * through it. Otherwise the port is taken by this process alone, so a second
   * server started on it fails.
   */
  listen(host: string, port: number, shared?: boolean): Promise<number>;
  /** Stop accepting connections, then wait (up to `graceMs`) for in-flight requests. */
  close(graceMs?: number): Promise<void>;
  inFlight(): number;
}

interface ResState {
  /** The answer is written (or the client is gone): nothing more is written. */
  done: boolean;
  /** Still reading the body (a client gone meanwhile ends the request). */
  reading: boolean;
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
function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : `${ID_TAG}-${(++idSeq).toString(36)}`;
}

const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * Takes over a WebSocket upgrade request for its path (the socket is then
 * the handler's). `query` is the raw query string.
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, query: string) => void;

export interface HttpServerOptions {
  maxBodyBytes: number;
  log: Logger;
  /** WebSocket endpoints by path: a plain request there is 426, another method 405. */
  upgrades?: Record<string, UpgradeHandler>;
}

/** A header's value as a string ('' when absent; repeated ones as Node joins them). */
const header = (req: IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : '';
};

/**
 * A request target as path and raw query. Absolute-form (`http://host/path`,
 * what a proxy may send) is served as its path; null for anything else that
 * is not origin-form (`*`, `host:port`).
 */
function targetOf(url: string): { path: string; query: string } | null {
  let rest = url;
  if (url[0] !== '/') {
    const authority = /^https?:\/\/[^/?#]*/i.exec(url);
    if (!authority) return null;
    rest = url.slice(authority[0].length);
    if (rest[0] !== '/') rest = `/${rest}`;
  }
  const q = rest.indexOf('?');
  return q < 0 ? { path: rest, query: '' } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

export function createHttpServer(routes: Route[], opts: HttpServerOptions): HttpServer {
  const server = http.createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    // Checked here, to answer with Laurel's JSON error like every other refusal.
    requireHostHeader: false,
    connectionsCheckingInterval: 1_000,
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // One more than allowed is kept, so that too many is seen (the rest are not even stored).
  server.maxHeadersCount = MAX_HEADER_LINES + 1;

  const upgrades = new Map(Object.entries(opts.upgrades ?? {}));
  let inFlight = 0;
  let closing = false;
  /** Connections answered with `Connection: close`: whatever they still send is never run. */
  const closingSockets = new WeakSet<Duplex>();
  const drainWaiters: Array<() => void> = [];
  // Levels are fixed for the process's life: decide once.
  const debug = opts.log.isLevelEnabled('debug');

  const finish = () => {
    inFlight--;
    if (inFlight === 0) drainWaiters.splice(0).forEach((w) => w());
  };

  const write = (res: ServerResponse, state: ResState, r: Reply, close = false) => {
    if (state.done) return;
    state.done = true; // a response is written once
    state.reading = false;
    finish();
    const seconds = (performance.now() - state.start) / 1000;
    state.record(r.status, seconds);
    if (debug) opts.log.debug('request', { requestId: state.requestId, method: state.method, route: state.route, status: r.status, ms: Math.round(seconds * 1e5) / 100 });
    if (res.destroyed || res.writableEnded) return;
    const headers: Record<string, string> = { 'X-Request-Id': state.requestId };
    if (!r.headers?.['Content-Type']) headers['Content-Type'] = 'application/json';
    if (r.headers) for (const k in r.headers) headers[k] = r.headers[k]!;
    // Bytes, not a string: Node would join a string to the head and copy the
    // two into one string in V8's heap before encoding it for the socket.
    const body = state.head ? undefined : typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
    // writeHead fixes the head at once: without a length Node would send the body chunked.
    if (body && r.status !== 204 && r.status !== 304) headers['Content-Length'] = String(body.length);
    if (close || closing) {
      res.shouldKeepAlive = false;
      const socket = res.socket;
      if (close && socket) {
        closingSockets.add(socket);
        // Node destroys the connection once the answer is sent; unread bytes would then reset it (see closeGently).
        (socket as Duplex & { destroySoon(): void }).destroySoon = () => closeGently(socket);
      }
    }
    res.writeHead(r.status, headers);
    res.end(body);
  };

  const errorReply = (err: unknown, state: ResState, documents400 = false): Reply => {
    // An unreachable store is not logged per request: the Redis client logs the outage once (debug lines carry the 503s).
    const a = errorAnswer(err);
    if (a) return reply(a.status === 400 && !documents400 ? 422 : a.status, { error: a.message }, a.headers);
    opts.log.error('unhandled error', {
      requestId: state.requestId, method: state.method, route: state.route, err: err instanceof Error ? err.stack : String(err),
    });
    return reply(500, { error: 'Internal server error' });
  };

  const run = (res: ServerResponse, state: ResState, route: Route, req: Request) => {
    let out: Reply | Promise<Reply>;
    try {
      out = route.handler(req);
    } catch (err) {
      write(res, state, errorReply(err, state, route.documents400));
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (r) => write(res, state, r),
        (err) => write(res, state, errorReply(err, state, route.documents400)),
      );
    } else {
      write(res, state, out);
    }
  };

  const router = new Router<{ route: Route; record: ReturnType<typeof routeRecorder> }>();
  for (const route of routes) router.add(METHOD_NAME[route.method], route.pattern, { route, record: routeRecorder(METHOD_NAME[route.method], route.pattern) });
  const allowed = (path: string) => (upgrades.has(path) ? ['GET'] : router.allowed(path));
  const unmatched = new Map<string, ReturnType<typeof routeRecorder>>();
  const unmatchedRecord = (label: string) => unmatched.get(label) ?? unmatched.set(label, routeRecorder(label, 'unmatched')).get(label)!;

  /** No route for this method and path: 405 with Allow when the path has routes for other methods, else 404. */
  const unmatchedReply = (method: string, path: string): Reply => {
    const allow = allowed(path);
    return allow.length > 0 && !allow.includes(method)
      ? reply(405, { error: `Method ${method} is not allowed on ${path}` }, { Allow: allow.join(', ') })
      : reply(404, { error: `No route for ${method} ${path}` });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    // Pipelined behind an answer that closes the connection: never run.
    if (closingSockets.has(socket)) return void req.resume();
    const method = req.method ?? '';
    const target = targetOf(req.url ?? '');
    const match = target && router.find(method, target.path);
    const label = match ? method : KNOWN_METHODS.has(method) ? method : 'OTHER';
    const state: ResState = {
      done: false, reading: false, requestId: requestIdOf(req.headers['x-request-id']), start: performance.now(),
      record: match ? match.value.record : unmatchedRecord(label), method: label, route: match ? match.value.route.pattern : 'unmatched', head: method === 'HEAD',
    };
    inFlight++;
    const refuse = (r: Reply) => write(res, state, r, true);
    if (req.httpVersionMajor !== 1) return refuse(reply(505, { error: 'Only HTTP/1.1 and HTTP/1.0 are served' }));
    if (req.httpVersionMinor === 1 && req.headers.host === undefined) return refuse(reply(400, { error: 'An HTTP/1.1 request needs a Host header' }));
    if (req.rawHeaders.length > MAX_HEADER_LINES * 2) return refuse(reply(431, { error: `More than ${MAX_HEADER_LINES} header lines` }));
    if (!target) {
      if (method === 'OPTIONS' && req.url === '*') {
        const all = [...new Set(routes.map((r) => METHOD_NAME[r.method]))].join(', ');
        return write(res, state, { status: 204, body: '', headers: { Allow: all } });
      }
      return refuse(reply(400, { error: 'The request target must be a path' }));
    }
    const { path, query } = target;
    if (!match) {
      if (method === 'GET' && upgrades.has(path)) {
        // As any keyed route: no credentials at all is 401 first (an upgrade checks them for real).
        const credentials = header(req, 'x-api-key') || new URLSearchParams(query).get('token');
        if (!credentials) return write(res, state, reply(401, { error: 'Missing or invalid API key' }));
        return write(res, state, reply(426, { error: `${path} is a WebSocket endpoint: send an Upgrade request` }, { Upgrade: 'websocket' }));
      }
      return write(res, state, unmatchedReply(method, path));
    }
    const { route } = match.value;
    const params: string[] = [];
    let badParam: Reply | null = null;
    for (const p of match.params) {
      try {
        params.push(decodeURIComponent(p));
      } catch {
        badParam = errorReply(badRequest('Malformed percent-encoding in the path'), state, route.documents400);
      }
    }
    badParam ??= refusedInput(params, query);
    if (badParam) return write(res, state, badParam);
    const request: Request = {
      method: state.method,
      path,
      params,
      query: new URLSearchParams(query),
      apiKey: header(req, 'x-api-key'),
      tenantId: header(req, 'tenant-id'),
      idempotencyKey: header(req, 'idempotency-key'),
      ifMatch: header(req, 'if-match'),
      contentType: header(req, 'content-type'),
      authorization: header(req, 'authorization'),
      acceptEncoding: header(req, 'accept-encoding'),
      requestId: state.requestId,
      body: EMPTY,
    };
    if (!route.body) return run(res, state, route, request);
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if ((req as IncomingMessage & { upgrade?: boolean }).upgrade) {
      // Asked to switch protocols (h2c) and answered as HTTP/1.1 instead: the parser stopped at the head.
      if (hasBody) return refuse(reply(400, { error: 'A request with a body cannot ask for Upgrade here' }));
      return run(res, state, route, request);
    }
    const maxBody = route.maxBodyBytes ?? opts.maxBodyBytes;
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      // Refused before reading a byte (and before a 100 Continue): the connection closes.
      return refuse(tooLarge(maxBody));
    }
    if (hasBody && req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
    const chunks: Buffer[] = [];
    let size = 0;
    state.reading = true;
    req.on('data', (chunk: Buffer) => {
      if (!state.reading) return;
      size += chunk.length;
      if (size > maxBody) return refuse(tooLarge(maxBody));
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!state.reading) return;
      state.reading = false;
      request.body = chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks);
      run(res, state, route, request);
    });
    // The client went away before its body was complete: the request ends here.
    res.once('close', () => {
      if (!state.reading) return;
      state.reading = false;
      state.done = true;
      finish();
    });
  };

  server.on('request', onRequest);
  // `Expect: 100-continue`: decided by the route (a body too large is refused without reading it).
  server.on('checkContinue', onRequest);

  /**
   * Requests the server answers itself on a raw socket (its parser is gone):
   * an upgrade to anything but a WebSocket endpoint (h2c) and CONNECT are
   * served like any request, then the connection is closed.
   */
  const serveDetached = (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.assignSocket(socket as never);
    res.shouldKeepAlive = false;
    res.once('finish', () => {
      res.detachSocket(socket as never);
      closeGently(socket);
    });
    onRequest(req, res);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = targetOf(req.url ?? '');
    const handler = target && upgrades.get(target.path);
    if (handler && req.method === 'GET' && req.httpVersion === '1.1' && header(req, 'upgrade').toLowerCase() === 'websocket') {
      return handler(req, socket, head, target.query);
    }
    serveDetached(req, socket);
  });
  server.on('connect', serveDetached);

  // What the parser refused: answered (400, 405, 431, 505...) and closed, or closed at once if it is not HTTP/1.
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (err: ParseError, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const busy = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || busy?.headersSent) return void socket.destroy();
    const answer = parseErrorAnswer(err, MAX_HEADER_BYTES);
    if (!answer) return void socket.destroy();
    const line = err.code === 'HPE_INVALID_METHOD' ? requestLine(err.rawPacket) : null;
    const target = line && targetOf(line.target);
    // A method llhttp does not know (`PROPFIND` it does; `get`, `FOO` it does not): answered like any unrouted method.
    const r = target ? unmatchedReply(line.method, target.path) : reply(answer.status, { error: answer.error });
    answerRaw(socket, r.status, r.body as string, { 'X-Request-Id': requestIdOf(undefined), ...r.headers });
  });

  return {
    listen(host, port, shared = false) {
      return new Promise((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new Error(`port ${port} on ${host} is already in use`) : err));
        server.listen({ host, port, exclusive: !shared }, () => resolve((server.address() as AddressInfo).port));
      });
    },
    async close(graceMs = 10_000) {
      closing = true;
      // Stops accepting, and closes idle keep-alive connections (answers still to come say Connection: close).
      server.close();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          drainWaiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      server.closeAllConnections();
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
