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
  /** The record's fields as written (stable: names a record, see the webhook deriver). */
  fields: Record<string, string | undefined>;
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
  | { kind: 'er'; fields: Record<string, string | undefined> };

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
    const values = flat[1]!.split(RECORD_SEPARATOR);
    if (values.length !== PACKED_EVENT.length) throw new Error(`a packed event of ${values.length} fields`);
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

/** The one decoder of change records; throws on a malformed one. */
export function decodeChange(flat: string[]): ChangeRecord {
  const f = recordFields(flat);
  const kind = f[F.kind];
  if (kind === K.erasure) return { kind: 'er', fields: f };
  if (kind !== K.event && kind !== K.user && kind !== K.timeGrant) throw new Error(`unknown kind ${String(kind)}`);
  const ev = kind === K.event ? (JSON.parse(f[F.event]!) as EventPart) : null;
  // Built whole, not spread from a common part: V8 copies a spread object
  // property by property through a slow path (a third of the flusher's
  // decoding time when it was spread).
  return {
    kind, fields: f,
    userId: ev ? ev.u : f[F.user]!,
    at: ev ? ev.at : Number(f[F.at]),
    opId: ev ? ev.id : f[F.event],
    date: ev ? ev.d : f[F.date],
    created: f[F.created] ?? '',
    patch: f[F.patch] ?? '',
    origin: f[F.origin],
    points: json<ScriptPoints>(f[F.points]),
    completions: list(f[F.completions]),
    periods: list(f[F.periods]),
    boards: list(f[F.boards]),
    leagues: list(f[F.leagues]),
    userFields: f[F.userFields] ?? '[]',
    event: ev, total: ev ? f[F.total]! : undefined,
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
