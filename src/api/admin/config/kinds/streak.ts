import typia from 'typia';
import type { ConfigStreak } from '../../../../wire/admin';
import { saveStreakSettings, STREAK_DEFAULTS, streakSettingsOf } from '../../writes/streaks';
import { Kind, problem } from '../kind';

/** The tenant's streak settings (the defaults until saved), metrics by key. */
export const streakKind: Kind<ConfigStreak> = {
  name: 'streak',
  single: true,
  validate: typia.createValidateEquals<ConfigStreak>(),
  async read(c, tenantId, names) {
    const s = await streakSettingsOf(c, tenantId);
    // A deleted metric drops out of the conditions, as it does for events.
    const metrics = s.metrics.flatMap((m) => {
      const key = names.metric.get(m.metricId);
      return key === undefined ? [] : [{ metricKey: key, threshold: m.threshold }];
    });
    return [{ ...s, metrics }];
  },
  normal: (s) => ({ ...STREAK_DEFAULTS, ...s, metrics: s.metrics.map((m) => ({ metricKey: m.metricKey, threshold: m.threshold })) }),
  identity: () => 'streak',
  refs: (s) => s.metrics.map((m, i) => ({ path: `.metrics[${i}].metricKey`, kind: 'metrics', identity: m.metricKey })),
  create: async () => problem('settings are never created'),
  async update(w, s) {
    const metrics: { metricId: string; threshold: number }[] = [];
    for (const m of s.metrics) metrics.push({ metricId: await w.ids.metric(m.metricKey), threshold: m.threshold });
    const out = await saveStreakSettings(w.ctx, w.c, w.scope.tenant.id, { ...s, metrics });
    return out ? problem(out) : [];
  },
  async remove() {},
};
