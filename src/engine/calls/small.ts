import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import type { ProgramBoost, ProgramText } from '../../domain/points';
import { boostsText } from './user-op';

/** lua/config_publish.lua: replace the compiled config unless a newer one is there; true when written. */
export async function configPublishCall(engine: Engine, tk: TenantKeys, a: { ver: string; group: string; fields: [string, string][] }): Promise<boolean> {
  const args: string[] = [a.ver, a.group];
  for (const [f, v] of a.fields) args.push(f, v);
  return (await engine.fcall('config_publish', [tk.config, tk.stream], args)) === 1;
}

export interface RateLimitReply { allowed: boolean; remaining: number; retryAfterMs: number; fullInMs: number }

/** lua/rate_limit.lua: count one request against a key's state (GCRA). */
export async function rateLimitCall(engine: Engine, a: { stateKey: string; now: number; intervalMicros: number; burst: number }): Promise<RateLimitReply> {
  const r = (await engine.fcall('rate_limit', [a.stateKey], [a.now, a.intervalMicros, a.burst])) as number[];
  return { allowed: r[0] === 1, remaining: r[1]!, retryAfterMs: r[2]!, fullInMs: r[3]! };
}

/** lua/retention_next.lua: move a user in the retention due set unless its score changed; true when moved. */
export async function retentionNextCall(engine: Engine, tk: TenantKeys, a: { userId: string; score: string; next: number | null }): Promise<boolean> {
  return (await engine.fcall('retention_next', [tk.retentionDue], [a.userId, a.score, a.next === null ? '' : String(a.next)])) === 1;
}

/** lua/user_erase.lua: delete a user's Redis state; `marker` is the stream id of the erase marker. */
export async function userEraseCall(
  engine: Engine, tk: TenantKeys, a: { userId: string; boards: string[]; idempotency: { bucket: number; member: string }[] },
): Promise<{ existed: boolean; marker: string }> {
  const [existed, marker] = (await engine.fcall(
    'user_erase',
    [tk.user(a.userId), tk.stats, tk.due, tk.stream, tk.recent(a.userId), ...a.boards, ...a.idempotency.map((s) => tk.idempotency(s.bucket))],
    [a.userId, a.boards.length, ...a.idempotency.map((s) => s.member)],
  )) as [number, string];
  return { existed: existed === 1, marker };
}

/** lua/time_grant.lua and lua/user_review.lua: a per-user background job. */
export async function userJobCall(
  engine: Engine, tk: TenantKeys, script: 'time_grant' | 'user_review',
  a: { ver: string; now: number; userId: string; program: ProgramText; userBoosts: ProgramBoost[]; date: string; opId: string },
): Promise<{ code: 'STALE' } | { code: 'OK' }> {
  const keys = script === 'time_grant'
    ? [tk.config, tk.user(a.userId), tk.due, tk.stream, tk.recent(a.userId)]
    : [tk.config, tk.user(a.userId), tk.stream, tk.stats, tk.recent(a.userId)];
  const r = (await engine.fcall(script, keys, [a.ver, a.now, a.userId, a.program, boostsText(a.userBoosts), a.date, a.opId])) as string[];
  return { code: r[0] === 'STALE' ? 'STALE' : 'OK' };
}
