import type { Filter } from './points';
import type { Achievement } from '../wire/app';

/** An achievement as the server and the scripts see it. */
export interface AchievementConfig {
  id: string;
  slot: number;
  key: string;
  name: string;
  description: string | null;
  badgeUrl: string | null;
  status: 'active' | 'inactive';
  trigger: 'metric' | 'streak' | 'api' | 'achievement';
  metricId: string | null;
  metricSlot: number | null;
  metricValue: number | null;
  streakLength: number | null;
  prerequisiteIds: string[];
  userAttributes: Filter[];
  eventAttributes: Filter[];
  updated: string;
}

/** Tenant stats field: how many users completed it. */
export const completionsField = (slot: number) => `ac${slot}`;

/** Trophy's achievement shape (with `achievedAt` for a user's view). */
export function achievementJson(a: AchievementConfig, metricName: (id: string) => string | undefined, achievedAt?: number | null) {
  const out: Achievement = {
    id: a.id,
    key: a.key,
    name: a.name,
    trigger: a.trigger,
    description: a.description,
    badgeUrl: a.badgeUrl,
    userAttributes: a.userAttributes.map(([key, value]) => ({ key, value })),
  };
  if (a.trigger === 'metric') {
    Object.assign(out, {
      metricId: a.metricId,
      metricValue: a.metricValue,
      metricName: metricName(a.metricId!),
      eventAttributes: a.eventAttributes.map(([key, value]) => ({ key, value })),
    });
    if (a.eventAttributes[0]) out.eventAttribute = { key: a.eventAttributes[0][0], value: a.eventAttributes[0][1] };
  }
  if (a.trigger === 'streak') out.streakLength = a.streakLength!;
  if (a.trigger === 'achievement') out.achievementIds = a.prerequisiteIds;
  if (achievedAt !== undefined) out.achievedAt = achievedAt === null ? null : new Date(achievedAt).toISOString();
  return out;
}

/** Completions as a percentage of the tenant's users, to two decimals. */
export function rarity(completions: number, users: number): number {
  return users > 0 ? Math.round((completions / users) * 10_000) / 100 : 0;
}

/** Identifies the active achievements as configured: when it changes, users are reviewed. */
export function achievementSignature(list: Iterable<AchievementConfig>): string {
  const parts: string[] = [];
  for (const a of list) if (a.status === 'active') parts.push(`${a.id}@${a.updated}`);
  return parts.sort().join(',');
}
