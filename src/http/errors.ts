import { DomainError, ErrorKind, unavailable } from '../domain/errors';
import { HttpError, isUnavailable } from '../errors';

/** The one map from domain errors to HTTP statuses. */
const STATUS: Record<ErrorKind, number> = { invalid: 422, not_found: 404, conflict: 409, unavailable: 503 };
export const statusOf = (err: DomainError) => STATUS[err.kind];

export interface ErrorAnswer {
  status: number;
  message: string;
  headers: Record<string, string>;
}

/**
 * How an error thrown while serving is answered (`{"error": message}`):
 * HttpErrors as they say, domain errors by kind, an unreachable store as 503;
 * null for anything else (a 500, which the caller logs, without its message).
 */
export function errorAnswer(err: unknown): ErrorAnswer | null {
  if (err instanceof HttpError) return { status: err.status, message: err.message, headers: err.headers };
  const e = err instanceof DomainError ? err : isUnavailable(err) ? unavailable() : null;
  if (!e) return null;
  return { status: STATUS[e.kind], message: e.message, headers: e.kind === 'unavailable' ? { 'Retry-After': '1' } : {} };
}
