import typia from 'typia';
import type { ConfigAchievement, CreateAchievement } from '../../../../wire/admin';
import { achievementsOf } from '../../../../store/achievements';
import { deleteByKey } from '../../../../store/config-keys';
import { createAchievement, updateAchievement } from '../../writes/achievements';
import { byIdentity, defined, filterRefs, filtersByKey, Kind, outcome, Writer } from '../kind';

/** The Admin API's fields for an achievement, with ids for keys. */
async function fields(w: Writer, a: ConfigAchievement): Promise<CreateAchievement> {
  const prerequisiteIds: string[] = [];
  for (const k of a.prerequisiteKeys ?? []) prerequisiteIds.push(await w.ids.achievement(k));
  return {
    key: a.key, name: a.name, description: a.description, badge: a.badge, status: a.status, trigger: a.trigger,
    metricId: a.metricKey === undefined ? undefined : await w.ids.metric(a.metricKey),
    metricValue: a.metricValue, streakLength: a.streakLength,
    prerequisiteIds: a.prerequisiteKeys ? prerequisiteIds : undefined,
    userAttributes: await w.ids.filters('user', a.userAttributes),
    eventAttributes: await w.ids.filters('event', a.eventAttributes),
  };
}

/** Achievements; a composite one names its prerequisites by key, which are written first. */
export const achievementsKind: Kind<ConfigAchievement> = {
  name: 'achievements',
  validate: typia.createValidateEquals<ConfigAchievement[]>(),
  async read(c, tenantId, names) {
    const items = (await achievementsOf(c, tenantId)).map((r) =>
      achievementsKind.normal({
        key: r.key, name: r.name, description: r.description, badge: r.badge_url ? { url: r.badge_url } : null, status: r.status,
        trigger: r.trigger,
        metricKey: r.metric_id ? names.metric.get(r.metric_id) : undefined,
        metricValue: r.metric_value === null ? undefined : Number(r.metric_value),
        streakLength: r.streak_length ?? undefined,
        prerequisiteKeys: r.prerequisite_ids.length ? r.prerequisite_ids.flatMap((id) => names.achievement.get(id) ?? []) : undefined,
        userAttributes: filtersByKey(names, r.user_attributes),
        eventAttributes: filtersByKey(names, r.event_attributes),
      }),
    );
    return byIdentity(items, (a) => a.key);
  },
  // Only the fields of its trigger type, as the Admin API shows it.
  normal: (a) =>
    defined({
      key: a.key, name: a.name, description: a.description ?? null, badge: a.badge ?? null, status: a.status ?? 'inactive', trigger: a.trigger,
      metricKey: a.trigger === 'metric' ? a.metricKey : undefined,
      metricValue: a.trigger === 'metric' ? a.metricValue : undefined,
      streakLength: a.trigger === 'streak' ? a.streakLength : undefined,
      prerequisiteKeys: a.trigger === 'achievement' ? a.prerequisiteKeys : undefined,
      userAttributes: a.userAttributes ?? [],
      eventAttributes: a.trigger === 'metric' ? (a.eventAttributes ?? []) : undefined,
    }),
  identity: (a) => a.key,
  needs: (a) => a.prerequisiteKeys ?? [],
  refs: (a) => [
    ...(a.metricKey !== undefined ? [{ path: '.metricKey', kind: 'metrics', identity: a.metricKey }] : []),
    ...(a.prerequisiteKeys ?? []).map((k, i) => ({ path: `.prerequisiteKeys[${i}]`, kind: 'achievements', identity: k })),
    ...filterRefs('user', 'userAttributes', a.userAttributes),
    ...filterRefs('event', 'eventAttributes', a.eventAttributes),
  ],
  create: async (w, a) => outcome(await createAchievement(w.ctx, w.c, w.scope, await fields(w, a))),
  async update(w, a) {
    const { key: _key, ...f } = await fields(w, a);
    const id = await w.ids.achievement(a.key);
    return outcome(await updateAchievement(w.ctx, w.c, w.scope, { ...f, id, description: a.description ?? null, badge: a.badge ?? null }));
  },
  async remove(w, a) {
    await deleteByKey(w.c, w.scope.tenant.id, 'achievements', a.key);
  },
};
