/**
 * Text the durable store can hold. Postgres refuses NUL characters and lone
 * UTF-16 surrogates in text and jsonb, so a string carrying either is refused
 * at the edge (422) instead of stalling the flusher later.
 */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const storable = (s: string): boolean => !UNSTORABLE.test(s);

export const UNSTORABLE_RULE = 'must not contain NUL characters or lone UTF-16 surrogates';

/** The path (e.g. `body.user.id`) of the first string or key in `value` that Postgres cannot store, else null. */
export function unstorablePath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return storable(value) ? null : path;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = unstorablePath(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  for (const k of Object.keys(value)) {
    if (!storable(k)) return `a key of ${path}`;
    const p = unstorablePath((value as Record<string, unknown>)[k], `${path}.${k}`);
    if (p) return p;
  }
  return null;
}
