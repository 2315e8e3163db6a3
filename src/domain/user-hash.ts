/**
 * The user hash: the Redis hash that holds one user, and this module is the
 * one place that spells its field names. Lua gets them from the generated
 * prelude (src/engine/prelude.ts) under the same names, and the flusher keeps
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

/**
 * Fields named by a prefix and a slot (or frequency): a metric's total
 * (`m<metric slot>`), a points system's total (`p<system slot>`), when the
 * user completed an achievement (ms, `a<achievement slot>`).
 */
export const TOTAL_PREFIX = 'm';
export const POINTS_PREFIX = 'p';
export const ACHIEVED_PREFIX = 'a';
export const totalField = (metricSlot: number) => `${TOTAL_PREFIX}${metricSlot}`;
export const pointsField = (systemSlot: number) => `${POINTS_PREFIX}${systemSlot}`;
export const achievedField = (slot: number) => `${ACHIEVED_PREFIX}${slot}`;
/**
 * Kept by the scripts alone: a metric trigger's high-water mark of threshold
 * multiples (`h<trigger slot>`), a time trigger's grants ('activation:count',
 * `g<trigger slot>`), a repeating board's run total ('run:value', `L<board slot>`).
 */
export const HIGH_WATER_PREFIX = 'h';
export const TIME_GRANTS_PREFIX = 'g';
export const RUN_TOTAL_PREFIX = 'L';
/** A user's place in a league, by league slot ('run,tier,cohort,value'; see lua/lib/50-leagues.lua). */
export const LEAGUE_PREFIX = 'G';

/** A streak frequency's packed state (domain/streaks parseState), freezes held, first streak day, freezes earned. */
export const STREAK_PREFIX = 'S';
export const streakField = (f: 'd' | 'w' | 'm') => `${STREAK_PREFIX}${f}`;
export const FREEZES_FIELD = 'fz';
export const FREEZE_ANCHOR_FIELD = 'fa';
export const FREEZES_EARNED_FIELD = 'fe';
/** A frequency's recent period records (domain/streaks recentPeriods) and the user's pauses (domain/streaks pausesFrom). */
export const HISTORY_PREFIX = 'H';
export const historyField = (f: 'd' | 'w' | 'm') => `${HISTORY_PREFIX}${f}`;
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

/** Whether the hash holds a user (every user has a creation time; an unknown or erased one has no fields). */
export const isUser = (fields: Map<string, string>) => fields.has(CREATED_FIELD);

/** The user's zone, the tenant's default (TenantConfig.defaultZone) when unknown. */
export const zoneIn = (fields: Map<string, string>, tenantDefault: string) => zoneOr(fields.get(ZONE_FIELD), tenantDefault);

/** A user's attributes from their hash fields. */
export function attributesIn(fields: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [f, v] of fields) if (f.startsWith(ATTRIBUTE_PREFIX)) out[f.slice(ATTRIBUTE_PREFIX.length)] = v;
  return out;
}
