import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import { boostsText, UserOpArgs } from './user-op';
import { toMap } from '../../domain/users';

export interface UserUpsertArgs extends UserOpArgs {
  mode: 'upsert' | 'update';
}

export type UserUpsertReply = { code: 'STALE' } | { code: 'NOTFOUND' } | { code: 'BLOCKED'; systemSlot: string } | { code: 'OK'; fields: Map<string, string> };

/** lua/user_upsert.lua: create or update a user's profile. */
export async function userUpsertCall(engine: Engine, tk: TenantKeys, a: UserUpsertArgs): Promise<UserUpsertReply> {
  const r = (await engine.fcall(
    'user_upsert',
    [tk.config, tk.user(a.userId), tk.stream, tk.stats, tk.due, tk.recent(a.userId)],
    [a.ver, a.now, a.mode, a.userId, a.patch, a.program, boostsText(a.userBoosts), a.date, a.opId],
  )) as string[];
  if (r[0] === 'STALE' || r[0] === 'NOTFOUND') return { code: r[0] };
  if (r[0] === 'BLOCKED') return { code: 'BLOCKED', systemSlot: r[1]! };
  return { code: 'OK', fields: toMap(r, 4) };
}
