import type { IValidation } from 'typia';
import { invalid } from '../../errors';
import { describe } from '../../http/body';
import type { AdminIssue, Batch, Deleted } from '../../wire/admin';
import type { Io, Schema } from '../define';

export type { AdminIssue };

export const MAX_BATCH = 100;

/**
 * Split a batch body into items that passed validation and issues for those
 * that did not. The body itself must be an array of at most 100 items.
 */
export function parseBatch<T>(body: unknown, validate: (x: unknown) => IValidation<T>): ParsedBatch<T> {
  if (!Array.isArray(body)) throw invalid('The request body must be a JSON array');
  if (body.length === 0) throw invalid('The request body must contain at least one item');
  if (body.length > MAX_BATCH) throw invalid(`At most ${MAX_BATCH} items per request`);
  const items: { index: number; item: T }[] = [];
  const issues: AdminIssue[] = [];
  body.forEach((raw, index) => {
    const r = validate(raw);
    if (r.success) items.push({ index, item: r.data });
    else issues.push({ index, severity: 'error', message: describe(r.errors, 'item') });
  });
  return { items, issues };
}

/** A batch body as a handler receives it: the items that passed validation (with their index), and issues for the others. */
export interface ParsedBatch<T> {
  items: { index: number; item: T }[];
  issues: AdminIssue[];
}

/**
 * A batch body in a route definition: described as `Batch<T>`, validated item
 * by item (an invalid item is an issue, not a 422). A body that is no batch at
 * all is refused by parseBatch (422, with its own message).
 */
export const batchIo = <T>(validate: (x: unknown) => IValidation<T>, schema: Schema<Batch<NoInfer<T>>>): Io<ParsedBatch<T>> => ({
  validate: (body) => ({ success: true, data: parseBatch(body, validate) }),
  schema: schema as Schema<unknown> as Schema<ParsedBatch<T>>,
});

export const issueAt = (index: number, message: string): AdminIssue => ({ index, severity: 'error', message });
export const issueFor = (id: string, message: string): AdminIssue => ({ id, severity: 'error', message });

/** A delete by ids' answer: the ids deleted, and an issue for each asked for and not found. */
export function deletedOf(asked: readonly string[], gone: readonly string[], notFoundMessage: string): Deleted {
  const found = new Set(gone);
  return { deleted: gone.map((id) => ({ id })), issues: asked.filter((id) => !found.has(id)).map((id) => issueFor(id, notFoundMessage)) };
}

/**
 * Keys of metrics, attributes and the like. `__proto__` is refused: keys
 * become property names in JSON responses and filters, where that one name
 * would be swallowed instead of stored.
 */
export const KEY_PATTERN = /^(?!__proto__$)[A-Za-z0-9_-]{1,100}$/;
export const KEY_RULE = 'Key may contain only letters, digits, hyphens and underscores (at most 100), and may not be __proto__';
