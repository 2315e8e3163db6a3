import type { ScriptPoints } from '../domain/points';
import type { ScriptBoard } from '../domain/leaderboards';
import type { ScriptLeague } from '../domain/leagues';

/**
 * The change record: what one script call changed, appended to the tenant's
 * change stream (lua/lib/10-common.lua append_change) and read by the
 * flusher (Postgres), the webhook deriver and the live feed, all through
 * decodeChange below. Stream fields, as the scripts write them:
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
 *   uf   user-hash fields changed ({field: value | false (deleted)})
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
  userFields: Record<string, string | false>;
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

/** A stream entry's flat field, value, ... list as an object. */
export function recordFields(flat: string[]): Record<string, string | undefined> {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  return f;
}

/** The one decoder of change records; throws on a malformed one. */
export function decodeChange(flat: string[]): ChangeRecord {
  const f = recordFields(flat);
  if (f.k === 'er') return { kind: 'er', fields: f };
  if (f.k !== 'ev' && f.k !== 'us' && f.k !== 'tg') throw new Error(`unknown kind ${String(f.k)}`);
  const ev = f.k === 'ev' ? (JSON.parse(f.e!) as EventPart) : null;
  const base: UserChangeBase = {
    fields: f,
    userId: ev ? ev.u : f.u!,
    at: ev ? ev.at : Number(f.at),
    opId: ev ? ev.id : f.e,
    date: ev ? ev.d : f.d,
    created: f.c ?? '',
    patch: f.p ?? '',
    origin: f.o,
    points: f.pa && f.pa !== '{}' ? (JSON.parse(f.pa) as ScriptPoints) : null,
    completions: list(f.ach),
    periods: list(f.stk),
    boards: list(f.lb),
    leagues: list(f.lg),
    userFields: f.uf && f.uf !== '{}' ? (JSON.parse(f.uf) as Record<string, string | false>) : {},
  };
  if (ev) return { ...base, kind: 'ev', event: ev, total: f.t! };
  return { ...base, kind: f.k as 'us' | 'tg' };
}

/** The user a raw record is about, without decoding the rest (null: none, such as an erasure marker). */
export function changeOwner(flat: string[]): string | null {
  const f = recordFields(flat);
  if (f.k === 'ev') return (JSON.parse(f.e!) as { u: string }).u;
  return f.u ?? null;
}
