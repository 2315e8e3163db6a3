import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import { toMap } from '../../domain/users';

/** `fields` is empty for an unknown user; `unflushed`: the user's last change id while Postgres may lack it, else ''. */
export type UserReadReply = { code: 'STALE' } | { code: 'OK'; unflushed: string; fields: Map<string, string> };

/** lua/user_read.lua: a user's hash, checked against the config version. */
export async function userReadCall(engine: Engine, tk: TenantKeys, a: { ver: string; userId: string }): Promise<UserReadReply> {
  const r = (await engine.fcall('user_read', [tk.config, tk.user(a.userId), tk.stream], [a.ver])) as string[];
  if (r[0] === 'STALE') return { code: 'STALE' };
  return { code: 'OK', unflushed: r[1]!, fields: toMap(r, 2) };
}
