import { HttpError } from '../errors';
import { DomainError, unavailable } from '../domain/errors';
import { zoneOr } from '../domain/time';

/** Where the last zone seen of each user is remembered (`tenantSlot:userId` → zone). */
export interface ZoneMemory {
  get(key: string): string | undefined;
  set(key: string, zone: string, ttlMs: number): void;
}

export const ZONE_TTL_MS = 3_600_000;

/** Where a user's last seen zone is remembered. */
export const zoneKey = (tenantSlot: number, userId: string) => `${tenantSlot}:${userId}`;

/**
 * The zone to compute a user's dates in first: the one sent (null clears it:
 * the tenant's default), else the last one seen, else the tenant's default.
 */
export function firstZone(zones: ZoneMemory, key: string, sent: string | null | undefined, tenantDefault: string): string {
  return sent === undefined ? (zones.get(key) ?? tenantDefault) : zoneOr(sent, tenantDefault);
}

/**
 * The one zone guess-and-retry loop. A per-user script is called with dates
 * computed in a guessed zone (the one sent, else the last one seen); when
 * the user's stored zone differs, the script answers TZ with it and changes
 * nothing, and the call is made again in that zone (which is remembered).
 * The zone can change only once per call, so two attempts suffice; null when
 * it moved again (the caller answers 503).
 */
export async function inUserZone<R extends { code: string }>(
  zones: ZoneMemory,
  zoneKey: string,
  firstGuess: string,
  call: (zone: string) => Promise<R | { code: 'TZ'; zone: string }>,
  attempts = 2,
): Promise<{ reply: Exclude<R, { code: 'TZ' }>; zone: string } | null> {
  let zone = firstGuess;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const r = await call(zone);
    if (r.code !== 'TZ') return { reply: r as Exclude<R, { code: 'TZ' }>, zone };
    zone = (r as { zone: string }).zone;
    zones.set(zoneKey, zone, ZONE_TTL_MS);
  }
  return null;
}

/** A script's answer when the config version it was given is out of date. */
export const STALE = Symbol('stale');

/** Where a tenant's compiled config comes from (the TenantConfigs cache). */
export interface ConfigSource<K, C extends { ver: string }> {
  get(tenant: K): Promise<C>;
  reload(tenant: K): Promise<C>;
  isCurrent(tenant: K, ver: string): Promise<boolean>;
}

/**
 * The one stale-config retry loop. Run `fn` with the tenant's config; when a
 * script reports the config moved on (STALE), reload it and run again
 * (validation included), a few times at most. A refusal (404, 422…) may come
 * from a stale copy too (a metric created a moment ago by another process):
 * before answering it, confirm the version.
 */
export async function withConfig<T, K, C extends { ver: string }>(
  configs: ConfigSource<K, C>,
  tenant: K,
  fn: (cfg: C) => Promise<T | typeof STALE>,
): Promise<T> {
  let cfg = await configs.get(tenant);
  for (let attempt = 0; attempt < 5; attempt++) {
    let out: T | typeof STALE;
    try {
      out = await fn(cfg);
    } catch (err) {
      const refusal = err instanceof DomainError ? err.kind !== 'unavailable' : err instanceof HttpError && err.status < 500;
      if (!refusal || (await configs.isCurrent(tenant, cfg.ver))) throw err;
      out = STALE;
    }
    if (out !== STALE) return out;
    cfg = await configs.reload(tenant);
  }
  throw unavailable('Configuration is changing; retry shortly');
}
