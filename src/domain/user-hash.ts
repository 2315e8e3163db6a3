/**
 * The user hash: the Redis hash that holds one user, and this module is the
 * only TypeScript that spells its field names. The Lua side writes the same
 * names (lua/lib/10-common.lua reads and writes the hash; 15-streaks.lua,
 * 20-points.lua, 30-achievements.lua own their fields), and the flusher keeps
 * them in Postgres, so a rename is a data migration.
 */
import { zoneOr } from './time';

/** Profile fields, as Trophy's user object has them. */
export const EMAIL_FIELD = 'e';
export const NAME_FIELD = 'n';
/** IANA zone; absent or '' when unknown (then the tenant's default zone). */
export const ZONE_FIELD = 'tz';
export const DEVICE_TOKENS_FIELD = 'dt';
export const SUBSCRIBED_FIELD = 'se';
/** Created and updated, ms since the epoch. */
export const CREATED_FIELD = 'c';
export const UPDATED_FIELD = 'u';
/** A custom attribute is `a:<key>`. */
export const ATTRIBUTE_PREFIX = 'a:';
export const attributeField = (key: string) => `${ATTRIBUTE_PREFIX}${key}`;

/** A metric's total (`m<metric slot>`), a points system's total (`p<system slot>`). */
export const totalField = (metricSlot: number) => `m${metricSlot}`;
export const pointsField = (systemSlot: number) => `p${systemSlot}`;
/** When the user completed an achievement (ms), `a<achievement slot>`. */
export const achievedField = (slot: number) => `a${slot}`;

/** A streak frequency's packed state (domain/streaks parseState), freezes held, first streak day. */
export const streakField = (f: 'd' | 'w' | 'm') => `S${f}`;
export const FREEZES_FIELD = 'fz';
export const FREEZE_ANCHOR_FIELD = 'fa';
/** A frequency's recent period records (domain/streaks recentPeriods) and the user's pauses (domain/streaks pausesFrom). */
export const historyField = (f: 'd' | 'w' | 'm') => `H${f}`;
export const PAUSES_FIELD = 'pz';

/** Retention: control group ('1'), last active local date, the user's own streak rule, a notification type's channels. */
export const CONTROL_FIELD = 'cg';
export const LAST_ACTIVE_FIELD = 'ld';
export const STREAK_PREF_FIELD = 'sp';
export const prefField = (type: string) => `np:${type}`;

/**
 * The stream id of the user's last change record (read your writes: the
 * store compares it with the flusher's position). Not part of the durable
 * record and never shown.
 */
export const LAST_CHANGE_FIELD = 'lc';

/** The user's zone, the tenant's default (TenantConfig.defaultZone) when unknown. */
export const zoneIn = (fields: Map<string, string>, tenantDefault: string) => zoneOr(fields.get(ZONE_FIELD), tenantDefault);

/** A user's attributes from their hash fields. */
export function attributesIn(fields: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [f, v] of fields) if (f.startsWith(ATTRIBUTE_PREFIX)) out[f.slice(ATTRIBUTE_PREFIX.length)] = v;
  return out;
}
