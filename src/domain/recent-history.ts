import { dateFromDay } from './time';

/**
 * A user's recent history in Redis: a string beside the user hash (src/redis/keys.ts
 * `recent`) of `field=value` lines (one string, not a hash: lists are longer
 * than the 64 bytes a small hash's values may take) holding, per points system and per leaderboard, the user's
 * RECENT_KEPT newest awards and board changes, written and trimmed by the
 * script call that makes them (lua/lib/12-recent.lua). The reads a client
 * makes right after an event answer from it without Postgres when the
 * request fits; this module is the one place that spells its fields and
 * its encoding (the Lua side writes the same).
 *
 * A list is `header;entry;entry...`, newest first; the header's first
 * character says whether the list is complete ('c': every entry the user
 * ever had there) or not ('p', 'x'), and for boards the rest is the run.
 */

/** Entries kept per list: the default count of Trophy's awards and numEvents. */
export const RECENT_KEPT = 10;

/** Present ('1') when the user is tracked since creation, or was rebuilt from Postgres: a missing list then means no history. */
export const TRACKED_FIELD = 't';
/** The user's newest awards of a points system (`w<system slot>`), newest changes on a leaderboard (of one run, `b<board slot>`). */
export const RECENT_AWARDS_PREFIX = 'w';
export const RECENT_BOARD_PREFIX = 'b';
export const recentAwardsField = (systemSlot: number) => `${RECENT_AWARDS_PREFIX}${systemSlot}`;
export const recentBoardField = (boardSlot: number) => `${RECENT_BOARD_PREFIX}${boardSlot}`;

/** The fields of a recent-history text. */
export function decodeRecent(text: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text ? text.split('\n') : []) {
    const eq = line.indexOf('=');
    out.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return out;
}

export function encodeRecent(fields: Map<string, string>): string {
  return [...fields].map(([f, v]) => `${f}=${v}`).join('\n');
}

interface List {
  complete: boolean;
  run: string;
  entries: string[];
}

function parseList(raw: string): List {
  const [head, ...entries] = raw.split(';');
  return { complete: head![0] === 'c', run: head!.slice(1), entries };
}

/** A list's text: complete or not, the run ('' without), entries newest first. */
export function encodeList(complete: boolean, run: string, entries: string[]): string {
  return [`${complete ? 'c' : 'p'}${run}`, ...entries].join(';');
}

/** The `n` newest entries when the list holds them all (complete, or at least `n` long), else null. */
function newest(list: List, n: number): string[] | null {
  if (list.entries.length >= n) return list.entries.slice(0, n);
  return list.complete ? list.entries : null;
}

/** One award as the list keeps it. */
export interface RecentAward {
  /** The operation (event, grant ...) that paid it: its award id derives from it, the trigger and `index`. */
  opId: string;
  at: number;
  /** Its place among the operation's awards in the system. */
  index: number;
  triggerSlot: number;
  /** The first 8 characters of the trigger version that paid it. */
  versionTag: string;
  awarded: number;
  total: number;
  /** Boosted awards only: the user's local date, and the first 8 characters of each boost id. */
  date: string | null;
  boostTags: string[];
}

const uuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export function encodeAward(a: RecentAward): string {
  const base = [a.opId.replaceAll('-', ''), a.at, a.index, a.triggerSlot, a.versionTag, a.awarded, a.total].join(',');
  return a.boostTags.length ? `${base},${a.date},${a.boostTags.join('.')}` : base;
}

function decodeAward(e: string): RecentAward {
  const [op, at, index, slot, tag, awarded, total, date, boosts] = e.split(',');
  return {
    opId: uuid(op!), at: Number(at), index: Number(index), triggerSlot: Number(slot), versionTag: tag!,
    awarded: Number(awarded), total: Number(total), date: date ?? null, boostTags: boosts ? boosts.split('.') : [],
  };
}

/**
 * The user's `n` newest awards of a system from its list (`raw`, '' when
 * there is none), or null when the list cannot answer (it lacks older
 * awards the request reaches, or the user predates it).
 */
export function recentAwards(raw: string, tracked: boolean, n: number): RecentAward[] | null {
  if (!raw) return tracked ? [] : null;
  return newest(parseList(raw), n)?.map(decodeAward) ?? null;
}

/** One change of a user's place on a board, as the list keeps it (null: none, as Postgres keeps it). */
export interface RecentBoardChange {
  at: number;
  date: string;
  previousRank: number | null;
  rank: number | null;
  previousValue: number | null;
  value: number | null;
}

const DAY_MS = 86_400_000;
const orNull = (s: string | undefined) => (s ? Number(s) : null);
const orEmpty = (x: number | null) => (x === null ? '' : String(x));

export function encodeBoardChange(c: RecentBoardChange): string {
  // The local date as its offset from the UTC date of the change (-1, 0 or 1).
  const offset = Date.parse(`${c.date}T00:00:00Z`) / DAY_MS - Math.floor(c.at / DAY_MS);
  return [c.at, offset, orEmpty(c.previousRank), orEmpty(c.rank), orEmpty(c.previousValue), orEmpty(c.value)].join(',');
}

function decodeBoardChange(e: string): RecentBoardChange {
  const [at, offset, pr, rk, pv, v] = e.split(',');
  const ms = Number(at);
  return { at: ms, date: dateFromDay(Math.floor(ms / DAY_MS) + Number(offset)), previousRank: orNull(pr), rank: orNull(rk), previousValue: orNull(pv), value: orNull(v) };
}

/**
 * The user's `n` newest changes in a board's run from its list, or null
 * when the list cannot answer (another run, older changes the request
 * reaches, or the user predates it).
 */
export function recentBoardChanges(raw: string, tracked: boolean, run: number, n: number): RecentBoardChange[] | null {
  if (!raw) return tracked ? [] : null;
  const list = parseList(raw);
  if (list.run !== String(run)) return null;
  return newest(list, n)?.map(decodeBoardChange) ?? null;
}
