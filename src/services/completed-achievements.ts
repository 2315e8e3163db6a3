import { achievementJson } from '../domain/achievements';
import type { TenantConfig } from '../store/tenant-config';

export const metricName = (cfg: TenantConfig) => (id: string) => cfg.metricsById.get(id)?.name;

/** The achievements a script call completed, in Trophy's UserAchievementResponse shape. */
export function completedJson(cfg: TenantConfig, doneJson: string | undefined, at: number) {
  if (!doneJson || doneJson === '[]' || doneJson === '{}') return [];
  return (JSON.parse(doneJson) as { i: string }[]).flatMap((d) => {
    const a = cfg.achievementsById.get(d.i);
    return a ? [achievementJson(a, metricName(cfg), at)] : [];
  });
}

