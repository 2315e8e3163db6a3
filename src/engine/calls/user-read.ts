import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import { toMap } from '../../domain/users';

/**
 * `fields` is empty for an unknown user; `unflushed`: the user's last change id while Postgres may lack it, else ''.
 * With `recent` (a list of the user's recent history, src/domain/recent-history.ts) named:
 * whether the user is tracked since creation, and the list ('' when none).
 */
export type UserReadReply = { code: 'STALE' } | { code: 'OK'; unflushed: string; fields: Map<string, string>; tracked: boolean; recent: string };

/** lua/user_read.lua: a user's hash, checked against the config version. */
export async function userReadCall(engine: Engine, tk: TenantKeys, a: { ver: string; userId: string; recent?: string }): Promise<UserReadReply> {
  const r = (await engine.fcall('user_read', [tk.config, tk.user(a.userId), tk.stream, tk.recent(a.userId)], [a.ver, a.recent ?? ''])) as string[];
  if (r[0] === 'STALE') return { code: 'STALE' };
  return { code: 'OK', unflushed: r[1]!, tracked: r[2] === '1', recent: r[3]!, fields: toMap(r, 4) };
}
