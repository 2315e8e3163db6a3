/**
 * What a service says when it refuses a request or cannot serve it: the kind
 * of refusal and a message for the caller. Services and the domain throw
 * these; the HTTP layer alone turns a kind into a status (src/http/errors.ts),
 * and the batch consumer records what the single endpoint would have answered.
 */
export type ErrorKind = 'invalid' | 'not_found' | 'conflict' | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request cannot be applied as sent: input that is not valid (a field, a
 * query parameter, a path id, a batch's size), or that the current state
 * refuses (points that would go below zero, an attribute not created yet).
 * Trophy answers both alike (422), and its SDKs raise one error for them.
 */
export const invalid = (msg: string) => new DomainError('invalid', msg);
export const notFound = (msg: string) => new DomainError('not_found', msg);
export const conflict = (msg: string) => new DomainError('conflict', msg);
/** A backing store cannot be reached or is catching up: the caller may retry shortly. */
export const unavailable = (msg = 'Service temporarily unavailable, retry shortly') => new DomainError('unavailable', msg);
