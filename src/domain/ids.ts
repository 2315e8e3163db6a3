import { createHash } from 'node:crypto';

/**
 * A UUID (version 5 layout) derived from its parts: the same parts always
 * give the same id, so a record written twice (a replayed batch) is one row.
 */
export function derivedId(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  const hex = h.digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 3) | 8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
