import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import type { StreakSettings } from '../../../wire/admin';
import { putStreakSettings, STREAK_DEFAULTS, streakSettingsOf } from '../../../store/streak-settings';
import { countMetrics } from '../../../store/metrics';

// Streak settings writes, shared by the Admin API and the configuration document.

export { STREAK_DEFAULTS, streakSettingsOf };

/** Store a tenant's streak settings (in a config transaction), or say why they are refused. */
export async function saveStreakSettings(ctx: Ctx, c: PoolClient, tenantId: string, b: StreakSettings): Promise<string | null> {
  if (b.enabled && b.metrics.length === 0) return 'An enabled streak needs at least one metric';
  const ids = b.metrics.map((m) => m.metricId.toLowerCase());
  if (new Set(ids).size !== ids.length) return 'Each metric may appear once';
  const s = { ...STREAK_DEFAULTS, ...b, metrics: b.metrics.map((m) => ({ metricId: m.metricId.toLowerCase(), threshold: m.threshold })) };
  if (s.initialFreezes > s.maxFreezes) return 'initialFreezes cannot exceed maxFreezes';
  if ((await countMetrics(c, tenantId, ids)) !== ids.length) return 'Unknown metric in metrics';
  await putStreakSettings(c, tenantId, s, new Date(ctx.clock.now()));
  return null;
}
