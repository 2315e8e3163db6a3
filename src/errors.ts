/**
 * Errors of the protocol (a body that is not JSON, a key missing or not
 * allowed, a rate limit), which only the HTTP edge raises, with their status.
 * Refusals of the domain are DomainErrors (domain/errors.ts, re-exported here
 * for the edge); src/http/errors.ts answers both as `{"error": "..."}`.
 * Anything else becomes a 500 (or a 503 when a backing store is unreachable)
 * without leaking its message.
 */
export { DomainError, invalid, notFound, conflict, unavailable } from './domain/errors';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * 400: a body that cannot be read as JSON at all. Trophy documents 400 on a
 * few operations only; on the others the server answers it as 422 (see
 * `Route.documents400`).
 */
export const badRequest = (msg: string) => new HttpError(400, msg);
export const unauthorized = () => new HttpError(401, 'Missing or invalid API key');
export const forbidden = (msg = 'This API key may not perform this request') => new HttpError(403, msg);
/** 429: `Retry-After` in whole seconds, at least 1 (clients may read 0 as "now"). */
export const tooManyRequests = (retryAfterMs: number, headers: Record<string, string> = {}) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new HttpError(429, `Rate limit exceeded; retry in ${seconds} s`, { 'Retry-After': String(seconds), ...headers });
};

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES =
  /Connection is closed|enableOfflineQueue|Stream isn't writeable|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|MaxRetriesPerRequest|LOADING|READONLY|CLUSTERDOWN|MASTERDOWN|TRYAGAIN|the database system is (starting up|shutting down)/;

/** True when an error means Redis or Postgres cannot be reached right now. */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // ioredis: a command cut off by a disconnect (its message names no connection).
  if (err.name === 'MaxRetriesPerRequestError') return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || /^(08|57P0)/.test(code))) return true;
  return UNAVAILABLE_MESSAGES.test(err.message);
}
