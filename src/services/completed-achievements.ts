import { achievementJson } from '../domain/achievements';
import type { TenantConfig } from '../store/tenant-config';

export const metricName = (cfg: TenantConfig) => (id: string) => cfg.metricsById.get(id)?.name;

/** The achievements a script call completed, in Trophy's UserAchievementResponse shape. */
export function completedJson(cfg: TenantConfig, doneJson: string | undefined, at: number) {
  const out: ReturnType<typeof achievementJson>[] = [];
  if (!doneJson || doneJson === '[]' || doneJson === '{}') return out;
  // A loop, not flatMap: on Node 20 flatMap costs 0.3-0.6 µs on arrays this small, a loop 0.03.
  for (const d of JSON.parse(doneJson) as { i: string }[]) {
    const a = cfg.achievementsById.get(d.i);
    if (a) out.push(achievementJson(a, metricName(cfg), at));
  }
  return out;
}

