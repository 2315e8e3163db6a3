import { hash } from 'node:crypto';

/**
 * A UUID (version 5 layout) derived from its parts: the same parts always
 * give the same id, so a record written twice (a replayed batch) is one row.
 */
export function derivedId(...parts: string[]): string {
  // One call into the hash (each part followed by NUL): several update()s cost more than the hashing.
  const hex = hash('sha256', `${parts.join('\0')}\0`, 'hex');
  const variant = ((parseInt(hex[16]!, 16) & 3) | 8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
