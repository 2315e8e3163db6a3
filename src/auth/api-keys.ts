import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Keys look like `{prefix}.{secret}`; only sha256(secret) is stored. */
export interface NewKey {
  prefix: string;
  key: string;
  secretHash: string;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomText(n: number): string {
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

export function generateKey(kind: 'admin' | 'application'): NewKey {
  const prefix = `${kind === 'admin' ? 'admin' : 'app'}_${randomText(10)}`;
  const secret = randomText(40);
  return { prefix, key: `${prefix}.${secret}`, secretHash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Split a presented key; null when it cannot be one of ours. */
export function splitKey(key: string): { prefix: string; secret: string } | null {
  const dot = key.indexOf('.');
  if (dot <= 0 || dot === key.length - 1 || key.length > 200) return null;
  return { prefix: key.slice(0, dot), secret: key.slice(dot + 1) };
}

/** A string's sha256, to compare presented secrets against (sameDigest). */
export const digest = (s: string): Buffer => hash('sha256', s, 'buffer');

/**
 * Constant-time equality of two digests: a presented string's against a
 * known one's, whose fixed length reveals nothing of either string's. Keep
 * the known side's digest, so each check hashes once. (Unequal lengths,
 * which two sha256 never have, are unequal.)
 */
export const sameDigest = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  return sameDigest(digest(a), digest(b)) && a.length === b.length;
}

/** Marks the environment key's stored prefix (shown without it). */
export const ENV_PREFIX_MARK = 'env:';

/**
 * The listed prefix of ADMIN_API_KEY: its part before the dot when it follows
 * our anatomy (`admin_…`), else a fixed word, so no part of a free-form key is
 * ever shown.
 */
export function environmentPrefix(key: string): string {
  const parts = splitKey(key);
  return parts && /^admin_[A-Za-z0-9_-]{1,40}$/.test(parts.prefix) ? parts.prefix : 'environment';
}
