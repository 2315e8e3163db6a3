/**
 * The change record's stream field names and kinds: one home for both sides.
 * The scripts write them through the Lua prelude (engine/prelude.ts, as
 * CR_* and KIND_*); engine/change-record.ts decodes them. Short, since every
 * record in every stream carries them.
 */
export const RECORD_FIELD = {
  kind: 'k',
  /** 'ev': the event (JSON); else the operation id. */
  event: 'e',
  total: 't',
  user: 'u',
  at: 'at',
  date: 'd',
  origin: 'o',
  created: 'c',
  patch: 'p',
  points: 'pa',
  completions: 'ach',
  periods: 'stk',
  boards: 'lb',
  leagues: 'lg',
  userFields: 'uf',
} as const;

export const RECORD_KIND = { event: 'ev', user: 'us', timeGrant: 'tg', erasure: 'er' } as const;
