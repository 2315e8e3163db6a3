import { invalid } from '../domain/errors';
import { canonicalZone } from '../domain/time';
import type { TenantConfig } from '../store/tenant-config';
import type { UserInput } from '../wire/app';

const MAX_ATTRIBUTES = 100;

/** The canonical zone of a user update: undefined when absent, null when cleared; 400 when not a real IANA zone. */
export function zoneOf(u: UserInput): string | null | undefined {
  if (u.tz === undefined || u.tz === null) return u.tz;
  const z = canonicalZone(u.tz);
  if (!z) throw invalid(`Invalid tz: "${u.tz}" is not an IANA time zone`);
  return z;
}

/** Attribute keys must be configured for their kind; 422 names the unknown ones. */
export function checkAttributeKeys(values: Record<string, string> | undefined, known: Set<string>, kind: 'user' | 'event'): void {
  if (!values) return;
  const keys = Object.keys(values);
  if (keys.length > MAX_ATTRIBUTES) throw invalid(`At most ${MAX_ATTRIBUTES} ${kind} attributes`);
  const unknown = keys.filter((k) => !known.has(k));
  if (unknown.length) throw invalid(`Unknown ${kind} attribute keys: ${unknown.join(', ')}. Create them with the Admin API first.`);
}

export function checkUserAttributes(cfg: TenantConfig, u: UserInput): void {
  checkAttributeKeys(u.attributes, cfg.userAttributes, 'user');
}

/** `userAttributes=plan:pro,region:eu` → pairs (422 when malformed). */
export function attributeQuery(raw: string | undefined): Record<string, string> {
  // No prototype: a `__proto__` pair is an ordinary (unknown) key here.
  const out: Record<string, string> = Object.create(null);
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const i = part.indexOf(':');
    if (i <= 0) throw invalid('userAttributes must look like key:value,key:value');
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}
