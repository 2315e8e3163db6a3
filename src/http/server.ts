import uWS from 'uWebSockets.js';
import { HttpError, isUnavailable, unavailable } from './errors';
import type { Logger } from '../log';

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
  415: '415 Unsupported Media Type', 422: '422 Unprocessable Entity', 429: '429 Too Many Requests',
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
}

export function createHttpServer(routes: Route[], opts: { maxBodyBytes: number; log: Logger }): HttpServer {
  const app = uWS.App();
  let inFlight = 0;
  let closing = false;
  let listenSocket: uWS.us_listen_socket | null = null;
  const drainWaiters: Array<() => void> = [];

  const finish = () => {
    inFlight--;
    if (inFlight === 0) drainWaiters.splice(0).forEach((w) => w());
  };

  const write = (res: uWS.HttpResponse, state: ResState, r: Reply, close = false) => {
    if (state.aborted) return;
    state.aborted = true; // a response is written once
    res.cork(() => {
      res.writeStatus(STATUS_TEXT[r.status] ?? `${r.status} Unknown`);
      res.writeHeader('Content-Type', 'application/json');
      if (r.headers) for (const k in r.headers) res.writeHeader(k, r.headers[k]!);
      res.end(r.body, close || closing);
    });
  };

  const errorReply = (err: unknown): Reply => {
    if (err instanceof HttpError) return reply(err.status, { error: err.message }, err.headers);
    if (isUnavailable(err)) {
      const e = unavailable();
      return reply(e.status, { error: e.message }, e.headers);
    }
    opts.log.error('unhandled error', { err: err instanceof Error ? err.stack : String(err) });
    return reply(500, { error: 'Internal server error' });
  };

  const run = (res: uWS.HttpResponse, state: ResState, handler: Handler, req: Request) => {
    let out: Reply | Promise<Reply>;
    try {
      out = handler(req);
    } catch (err) {
      write(res, state, errorReply(err));
      finish();
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (r) => write(res, state, r),
        (err) => write(res, state, errorReply(err)),
      ).finally(finish);
    } else {
      write(res, state, out);
      finish();
    }
  };

  for (const route of routes) {
    const nParams = (route.pattern.match(/:/g) ?? []).length;
    app[route.method](route.pattern, (res, uReq) => {
      const state: ResState = { aborted: false };
      res.onAborted(() => {
        state.aborted = true;
      });
      inFlight++;
      // Everything from uReq must be read now: it is invalid after this callback returns.
      const params: string[] = [];
      let badParam = false;
      for (let i = 0; i < nParams; i++) {
        try {
          params.push(decodeURIComponent(uReq.getParameter(i)));
        } catch {
          badParam = true;
        }
      }
      const req: Request = {
        method: METHOD_NAME[route.method],
        path: uReq.getUrl(),
        params,
        query: new URLSearchParams(uReq.getQuery() ?? ''),
        apiKey: uReq.getHeader('x-api-key'),
        tenantId: uReq.getHeader('tenant-id'),
        idempotencyKey: uReq.getHeader('idempotency-key'),
        contentType: uReq.getHeader('content-type'),
        body: EMPTY,
      };
      if (badParam) {
        write(res, state, reply(400, { error: 'Malformed percent-encoding in the path' }));
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

  // Anything unmatched: 405 when the path exists under another method, else 404.
  const known = routes.map((r) => ({ method: METHOD_NAME[r.method], re: patternRegex(r.pattern) }));
  app.any('/*', (res, uReq) => {
    const path = uReq.getUrl();
    const method = uReq.getMethod().toUpperCase();
    const allowed = [...new Set(known.filter((k) => k.re.test(path)).map((k) => k.method))];
    const state: ResState = { aborted: false };
    res.onAborted(() => (state.aborted = true));
    if (allowed.length > 0 && !allowed.includes(method)) {
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
