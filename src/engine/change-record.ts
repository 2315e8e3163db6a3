import type { ScriptPoints } from '../domain/points';
import type { ScriptBoard } from '../domain/leaderboards';
import type { ScriptLeague } from '../domain/leagues';
import { PACKED_EVENT, RECORD_FIELD as F, RECORD_KIND as K, RECORD_SEPARATOR } from '../domain/change-record';

/**
 * The change record: what one script call changed, appended to the tenant's
 * change stream (lua/lib/10-common.lua append_change) and read by the
 * flusher (Postgres), the webhook deriver and the live feed, all through
 * decodeChange below. Stream fields (named in domain/change-record.ts, whose
 * names the scripts use through the prelude), as the scripts write them (an
 * event's since 2026-11-28 packed into one field, see PACKED_EVENT; both
 * forms are read):
 *   k    kind: 'ev' event (event.lua), 'us' user change (user_upsert,
 *        achievement_complete, user_review, streak_read, streak_admin),
 *        'tg' time grant (time_grant), 'er' erasure marker (user_erase)
 *   e    'ev': the event (JSON, see EventPart); else the operation id
 *   t    'ev': the metric total after the event
 *   u, at, d   user id, time (ms), local date (not on 'ev': inside e)
 *   o    origin ('review' for user_review)
 *   c    creation time when the call created the user, else ''
 *   p    the profile patch (JSON) when it changed something, else ''
 *   pa   points changes (JSON ScriptPoints), ach completions ([{i}]),
 *   stk  streak periods written ([PeriodRecord]), lb leaderboard changes ([ScriptBoard]),
 *   lg   'ev': league changes ([ScriptLeague]; lua/lib/50-leagues.lua),
 *   uf   user-hash fields changed: [field, value, ...] (value null: deleted);
 *        records written before 2026-11-27 have {field: value | false}
 */

/** The event inside an 'ev' record (src/services/record-event.ts writes it). */
export interface EventPart {
  id: string;
  u: string;
  m: string;
  v: number;
  a: Record<string, string> | null;
  at: number;
  d: string;
  ik: string | null;
}

/** One streak period written: frequency code, period index, length, freeze used, pause used. */
export interface PeriodRecord {
  f: string;
  p: number;
  l: number;
  fr: number;
  pa: number;
}

interface UserChangeBase {
  /** The stream entry's field list as read (stable: names a record, see the webhook deriver and recordFields). */
  raw: string[];
  userId: string;
  at: number;
  /** The operation id (the event id for an event). */
  opId: string | undefined;
  date: string | undefined;
  /** Creation time ('' unless the call created the user) and profile patch ('' when none). */
  created: string;
  patch: string;
  origin: string | undefined;
  /** Points changes; null when none. */
  points: ScriptPoints | null;
  completions: { i: string }[];
  periods: PeriodRecord[];
  boards: ScriptBoard[];
  leagues: ScriptLeague[];
  /** The `uf` field as written (see changedFields): the flusher stores it without decoding. */
  userFields: string;
}

export type ChangeRecord =
  | (UserChangeBase & { kind: 'ev'; event: EventPart; total: string })
  | (UserChangeBase & { kind: 'us' | 'tg' })
  | { kind: 'er'; raw: string[] };

export type UserChangeRecord = Exclude<ChangeRecord, { kind: 'er' }>;

/** Lua encodes an empty list as an object. */
function list<T>(raw: string | undefined): T[] {
  if (!raw || raw === '[]' || raw === '{}') return [];
  const v = JSON.parse(raw) as unknown;
  return Array.isArray(v) ? (v as T[]) : [];
}

/** A JSON object field; null when absent or empty (Lua encodes an empty table as `{}`). */
function json<T>(raw: string | undefined): T | null {
  return raw && raw !== '{}' ? (JSON.parse(raw) as T) : null;
}

/**
 * A stream entry's flat field, value, ... list as an object: a packed
 * event's as the same object its fields would make written one by one (the
 * webhook deriver names a record by it).
 */
export function recordFields(flat: string[]): Record<string, string | undefined> {
  const f: Record<string, string> = {};
  if (flat.length === 2 && flat[0] === K.event) {
    const values = packedValues(flat[1]!);
    f[F.kind] = K.event;
    for (let i = 0; i < values.length; i++) f[PACKED_EVENT[i]!] = values[i]!;
    return f;
  }
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  return f;
}

/** A stream entry's fields written one by one: a packed event's unpacked (see recordFields), any other entry as it is. */
export function unpackedFields(flat: string[]): string[] {
  if (flat.length !== 2 || flat[0] !== K.event) return flat;
  try {
    return Object.entries(recordFields(flat)).flat() as string[];
  } catch {
    return flat; // unreadable: kept as it came
  }
}

/**
 * Where decodeChange finds each field: a packed event's values in
 * PACKED_EVENT's order, then the fields only other records carry (an
 * event's are inside its JSON).
 */
const LAYOUT = [...PACKED_EVENT, F.user, F.at, F.date, F.origin] as const;
const AT = Object.fromEntries(LAYOUT.map((f, i) => [f, i])) as Record<(typeof LAYOUT)[number], number>;

/**
 * The one decoder of change records; throws on a malformed one. A packed
 * event (most records) is read from its values by place, with no object of
 * its fields: building one and looking each field up in it doubled the
 * decoding's cost outside JSON.parse (docs/durability.md).
 */
export function decodeChange(flat: string[]): ChangeRecord {
  if (flat.length === 2 && flat[0] === K.event) return decoded(K.event, flat, packedValues(flat[1]!));
  const f = recordFields(flat);
  const kind = f[F.kind];
  if (kind === K.erasure) return { kind: 'er', raw: flat };
  if (kind !== K.event && kind !== K.user && kind !== K.timeGrant) throw new Error(`unknown kind ${String(kind)}`);
  return decoded(kind, flat, LAYOUT.map((name) => f[name]));
}

/** A packed event's values (see PACKED_EVENT). */
function packedValues(packed: string): string[] {
  const values = packed.split(RECORD_SEPARATOR);
  if (values.length !== PACKED_EVENT.length) throw new Error(`a packed event of ${values.length} fields`);
  return values;
}

/** A record from its values in LAYOUT's order (absent: undefined). */
function decoded(kind: UserChangeRecord['kind'], raw: string[], v: (string | undefined)[]): ChangeRecord {
  const ev = kind === K.event ? (JSON.parse(v[AT[F.event]]!) as EventPart) : null;
  // Built whole, not spread from a common part: V8 copies a spread object
  // property by property through a slow path (a third of the flusher's
  // decoding time when it was spread).
  return {
    kind, raw,
    userId: ev ? ev.u : v[AT[F.user]]!,
    at: ev ? ev.at : Number(v[AT[F.at]]),
    opId: ev ? ev.id : v[AT[F.event]],
    date: ev ? ev.d : v[AT[F.date]],
    created: v[AT[F.created]] ?? '',
    patch: v[AT[F.patch]] ?? '',
    origin: v[AT[F.origin]],
    points: json<ScriptPoints>(v[AT[F.points]]),
    completions: list(v[AT[F.completions]]),
    periods: list(v[AT[F.periods]]),
    boards: list(v[AT[F.boards]]),
    leagues: list(v[AT[F.leagues]]),
    userFields: v[AT[F.userFields]] ?? '[]',
    event: ev, total: ev ? v[AT[F.total]]! : undefined,
  } as ChangeRecord;
}

/** A record's changed user-hash fields, field -> value (null: deleted), in either of `uf`'s forms. */
export function changedFields(uf: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const v = JSON.parse(uf) as (string | null)[] | Record<string, string | false>;
  if (Array.isArray(v)) for (let i = 0; i + 1 < v.length; i += 2) out.set(v[i]!, v[i + 1]!);
  else for (const f in v) out.set(f, v[f] === false ? null : (v[f] as string));
  return out;
}

/** The user a raw record is about, without decoding the rest (null: none, such as an erasure marker). */
export function changeOwner(flat: string[]): string | null {
  const f = recordFields(flat);
  if (f[F.kind] === K.event) return (JSON.parse(f[F.event]!) as { u: string }).u;
  return f[F.user] ?? null;
}
