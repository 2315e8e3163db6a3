import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import { boostsText, UserOpArgs } from './user-op';

export interface AchievementCompleteArgs extends UserOpArgs {
  achievementSlot: number;
  achievementId: string;
  /** The achievement's user attribute filters (JSON). */
  userAttributes: string;
}

export type AchievementCompleteReply =
  | { code: 'STALE' }
  | { code: 'FILTERED' }
  | { code: 'BLOCKED'; systemSlot: string }
  | { code: 'DONE'; achievedAt: number }
  | { code: 'OK'; points: string; completions: string | undefined };

/** lua/achievement_complete.lua: complete an API achievement for a user. */
export async function achievementCompleteCall(engine: Engine, tk: TenantKeys, a: AchievementCompleteArgs): Promise<AchievementCompleteReply> {
  const r = (await engine.fcall('achievement_complete', [tk.config, tk.user(a.userId), tk.stream, tk.stats, tk.due, tk.recent(a.userId)], [
    a.ver, a.now, a.userId, a.patch, a.program, boostsText(a.userBoosts), a.date, a.opId, a.achievementSlot, a.achievementId, a.userAttributes,
  ])) as string[];
  switch (r[0]) {
    case 'STALE':
    case 'FILTERED':
      return { code: r[0] };
    case 'BLOCKED':
      return { code: 'BLOCKED', systemSlot: r[1]! };
    case 'DONE':
      return { code: 'DONE', achievedAt: Number(r[1]) };
    default:
      return { code: 'OK', points: r[1]!, completions: r[2] };
  }
}
