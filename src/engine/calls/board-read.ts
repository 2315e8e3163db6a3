import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';

/** One ranked entry: `score` is the packed board score (see TIE_BITS). */
export interface BoardEntry { userId: string; score: number; name: string | null }

/** `first`: the 0-based index of the first entry; null when nothing is ranked there (or the user is not). */
export interface BoardPage { first: number | null; entries: BoardEntry[] }

/** lua/board_read.lua: places `first`..`last` of a board set, with names; from `userId`'s place when given. */
export async function boardReadCall(engine: Engine, tk: TenantKeys, a: { board: string; first: number; last: number; userId: string }): Promise<BoardPage> {
  const flat = (await engine.fcall('board_read', [a.board], [a.first, a.last, tk.user(''), a.userId])) as (string | number | null)[];
  if (flat.length === 0) return { first: null, entries: [] };
  const entries: BoardEntry[] = [];
  for (let i = 1; i < flat.length; i += 3) entries.push({ userId: String(flat[i]), score: Number(flat[i + 1]), name: (flat[i + 2] as string | null) ?? null });
  return { first: Number(flat[0]), entries };
}
