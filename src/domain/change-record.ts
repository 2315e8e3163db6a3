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

/**
 * An event's record, most of every stream, is packed into one stream field
 * named after its kind: these fields' values in this order (lua/event.lua
 * writes them), joined by RECORD_SEPARATOR. Every one is JSON, a number or
 * empty, and JSON escapes control characters, so none holds the separator.
 * One field where there were eleven: the flusher's read of a record made
 * 22 strings and buffers in ioredis, and Redis stores and sends 2 elements.
 */
export const PACKED_EVENT = [
  RECORD_FIELD.event,
  RECORD_FIELD.total,
  RECORD_FIELD.created,
  RECORD_FIELD.patch,
  RECORD_FIELD.points,
  RECORD_FIELD.completions,
  RECORD_FIELD.periods,
  RECORD_FIELD.boards,
  RECORD_FIELD.leagues,
  RECORD_FIELD.userFields,
] as const;

/** ASCII's unit separator. */
export const RECORD_SEPARATOR = '\x1f';
