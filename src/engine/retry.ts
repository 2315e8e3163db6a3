/** Where the last zone seen of each user is remembered (`tenantSlot:userId` → zone). */
export interface ZoneMemory {
  get(key: string): string | undefined;
  set(key: string, zone: string, ttlMs: number): void;
}

export const ZONE_TTL_MS = 3_600_000;

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
