import type { IValidation } from 'typia';
import { badRequest, HttpError, invalid } from '../errors';
import type { Request } from './server';
import { unstorablePath, UNSTORABLE_RULE } from './text';

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/** The request body parsed as JSON (415 when it is declared as something else). */
export function jsonBody(req: Request): unknown {
  if (req.contentType && !JSON_TYPE.test(req.contentType)) {
    throw new HttpError(415, 'Content-Type must be application/json');
  }
  if (req.body.length === 0) throw badRequest('A JSON request body is required');
  const text = req.body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('Malformed JSON in request body');
  }
  // JSON can carry NUL or a lone surrogate only as a \u escape (raw control
  // characters are malformed, invalid UTF-8 decodes to U+FFFD): look only then.
  if (text.includes('\\u')) {
    const bad = unstorablePath(value, 'body');
    if (bad) throw invalid(`Invalid ${bad}: text ${UNSTORABLE_RULE}`);
  }
  return value;
}

/** Describe the first typia validation error, naming the field. */
export function describe(errors: IValidation.IError[], root: string): string {
  const e = errors[0]!;
  const field = e.path.replace(/^\$input/, root);
  return e.value === undefined ? `${field} is required (${e.expected})` : `Invalid ${field}: expected ${e.expected}`;
}

/** Validate with a typia validator; 422 naming the field when it fails. */
export function check<T>(validate: (x: unknown) => IValidation<T>, input: unknown, root = 'body'): T {
  const r = validate(input);
  if (r.success) return r.data;
  throw invalid(describe(r.errors, root));
}

/** An integer query parameter within bounds (422 otherwise). */
export function intParam(q: URLSearchParams, name: string, dflt: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** A boolean query parameter: `true` or `false` (default false; 422 otherwise). */
export function boolParam(q: URLSearchParams, name: string): boolean {
  const raw = q.get(name);
  if (raw === null || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw invalid(`${name} must be true or false`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export function uuidParam(value: string, name = 'id'): string {
  if (!isUuid(value)) throw invalid(`${name} must be a UUID`);
  return value.toLowerCase();
}

/** `ids` given as repeated parameters or comma-separated, each a UUID; at most 100. */
export function idsParam(q: URLSearchParams): string[] {
  const ids = q.getAll('ids').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw invalid('ids is required');
  if (ids.length > 100) throw invalid('At most 100 ids per request');
  return [...new Set(ids.map((id) => uuidParam(id, 'each id')))];
}
