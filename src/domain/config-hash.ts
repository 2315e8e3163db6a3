/**
 * Fields of a tenant's compiled config hash in Redis (store/compile.ts) that
 * the scripts read too, through the Lua prelude (engine/prelude.ts).
 */
/** The published config version; a call carrying another is answered STALE. */
export const CONFIG_VERSION_FIELD = 'ver';
/** The control group's share, read when a script creates a user. */
export const CONTROL_RATIO_FIELD = 'cr';
/** The zone of users who never sent one. */
export const DEFAULT_ZONE_FIELD = 'dz';
