import typia from 'typia';
import type { PoolClient } from '../../../../store/db';
import type { ConfigBoost, ConfigLevel, ConfigPointsSystem, ConfigTrigger, CreateBoost, CreateLevel, CreateTrigger } from '../../../../wire/admin';
import { deleteByKey } from '../../../../store/config-keys';
import { deleteEntry, EntryTable, entriesOf, systemsOf } from '../../../../store/points-systems';
import {
  createSystem, insertBoost, insertLevel, insertTrigger, updateBoost, updateLevel, updateSystem, updateTrigger,
} from '../../writes/points';
import type { Scope } from '../../resource';
import { byIdentity, defined, filterRefs, filtersByKey, identities, Kind, loadNames, Names, outcome, Problem, Ref, Writer } from '../kind';

/** A trigger's identity: its type and what it counts (two alike get ordinals). */
const triggerIdentity = (t: ConfigTrigger) =>
  `${t.type}:${t.metricKey ?? t.achievementKey ?? t.streakLength ?? (t.timeUnit ? `${t.timeInterval}${t.timeUnit}` : '')}`;
const levelIdentity = (l: ConfigLevel) => l.key;
const boostIdentity = (b: ConfigBoost) => b.name;

const normalTrigger = (t: ConfigTrigger): ConfigTrigger =>
  defined({
    type: t.type, points: t.points, status: t.status ?? 'inactive', blockIfOutOfPoints: t.blockIfOutOfPoints ?? false,
    userAttributes: t.userAttributes ?? [],
    metricKey: t.type === 'metric' ? t.metricKey : undefined,
    metricThreshold: t.type === 'metric' ? t.metricThreshold : undefined,
    eventAttributes: t.type === 'metric' ? (t.eventAttributes ?? []) : undefined,
    achievementKey: t.type === 'achievement' ? t.achievementKey : undefined,
    streakLength: t.type === 'streak' ? t.streakLength : undefined,
    timeUnit: t.type === 'time' ? t.timeUnit : undefined,
    timeInterval: t.type === 'time' ? t.timeInterval : undefined,
  });
const normalLevel = (l: ConfigLevel): ConfigLevel => ({ key: l.key, name: l.name, points: l.points, description: l.description ?? '', badge: l.badge ?? null });
const normalBoost = (b: ConfigBoost): ConfigBoost => ({
  name: b.name, start: b.start, end: b.end ?? null, multiplier: b.multiplier, rounding: b.rounding ?? 'down', userAttributes: b.userAttributes ?? [],
});

interface Entry<T> {
  id: string;
  item: T;
}

/** A system's levels, triggers and boosts (those not aimed at one user), each in document order. */
async function childrenOf(c: PoolClient, systemId: string, names: Names) {
  const rows = await entriesOf(c, systemId);
  const sorted = <T>(list: Entry<T>[], identity: (x: T) => string) => byIdentity(list, (e) => identity(e.item));
  const levels = rows.levels.map((r) => ({
    id: r.id, item: normalLevel({ key: r.key, name: r.name, points: r.points, description: r.description, badge: r.badge_url ? { url: r.badge_url } : null }),
  }));
  const triggers = rows.triggers.map((r) => ({
    id: r.id,
    item: normalTrigger({
      type: r.type, points: r.points, status: r.status, blockIfOutOfPoints: r.block_if_out_of_points,
      userAttributes: filtersByKey(names, r.user_attributes), eventAttributes: filtersByKey(names, r.event_attributes),
      metricKey: r.metric_id ? names.metric.get(r.metric_id) : undefined, metricThreshold: r.metric_threshold ?? undefined,
      achievementKey: r.achievement_id ? names.achievement.get(r.achievement_id) : undefined,
      streakLength: r.streak_length ?? undefined, timeUnit: r.time_unit ?? undefined, timeInterval: r.time_interval ?? undefined,
    }),
  }));
  const boosts = rows.boosts.map((r) => ({
    id: r.id,
    item: normalBoost({
      name: r.name, start: r.start_date, end: r.end_date, multiplier: Number(r.multiplier), rounding: r.rounding,
      userAttributes: filtersByKey(names, r.user_attributes),
    }),
  }));
  return { levels: sorted(levels, levelIdentity), triggers: sorted(triggers, triggerIdentity), boosts: sorted(boosts, boostIdentity) };
}

async function triggerFields(w: Writer, t: ConfigTrigger): Promise<CreateTrigger> {
  return {
    type: t.type, points: t.points, status: t.status, blockIfOutOfPoints: t.blockIfOutOfPoints,
    userAttributes: await w.ids.filters('user', t.userAttributes), eventAttributes: await w.ids.filters('event', t.eventAttributes),
    metricId: t.metricKey === undefined ? undefined : await w.ids.metric(t.metricKey), metricThreshold: t.metricThreshold,
    achievementId: t.achievementKey === undefined ? undefined : await w.ids.achievement(t.achievementKey),
    streakLength: t.streakLength, timeUnit: t.timeUnit, timeInterval: t.timeInterval,
  };
}
const levelFields = (l: ConfigLevel): CreateLevel => ({ ...l });
async function boostFields(w: Writer, b: ConfigBoost): Promise<CreateBoost> {
  return { ...b, userId: null, userAttributes: await w.ids.filters('user', b.userAttributes) };
}

/**
 * One nested list of an updated system brought to the document's: entries matched by identity are updated when
 * they differ, the others created, and those the document lacks deleted when pruning.
 */
async function sync<T>(
  w: Writer, field: string, want: T[], have: Entry<T>[], identity: (x: T) => string,
  ops: { create(x: T): Promise<unknown>; update(id: string, x: T): Promise<unknown>; table: EntryTable },
): Promise<Problem[]> {
  const haveIds = identities(have.map((e) => e.item), identity);
  const byId = new Map(have.map((e, i) => [haveIds[i]!, e]));
  const wantIds = identities(want, identity);
  const problems: Problem[] = [];
  for (const [i, x] of want.entries()) {
    const before = byId.get(wantIds[i]!);
    byId.delete(wantIds[i]!);
    if (before && JSON.stringify(before.item) === JSON.stringify(x)) continue;
    problems.push(...outcome(before ? await ops.update(before.id, x) : await ops.create(x), `.${field}[${i}]`));
  }
  if (w.prune) for (const e of byId.values()) await deleteEntry(w.c, ops.table, e.id);
  return problems;
}

/** Points systems with their levels, triggers and boosts. */
export const pointsSystemsKind: Kind<ConfigPointsSystem> = {
  name: 'pointsSystems',
  validate: typia.createValidateEquals<ConfigPointsSystem[]>(),
  async read(c, tenantId, names) {
    const out: ConfigPointsSystem[] = [];
    for (const r of await systemsOf(c, tenantId)) {
      const ch = await childrenOf(c, r.id, names);
      out.push({
        key: r.key, name: r.name, description: r.description, badge: r.badge_url ? { url: r.badge_url } : null, maxPoints: r.max_points,
        levels: ch.levels.map((e) => e.item), triggers: ch.triggers.map((e) => e.item), boosts: ch.boosts.map((e) => e.item),
      });
    }
    return byIdentity(out, (s) => s.key);
  },
  normal: (s) => ({
    key: s.key, name: s.name, description: s.description ?? '', badge: s.badge ?? null, maxPoints: s.maxPoints ?? null,
    levels: byIdentity((s.levels ?? []).map(normalLevel), levelIdentity),
    triggers: byIdentity((s.triggers ?? []).map(normalTrigger), triggerIdentity),
    boosts: byIdentity((s.boosts ?? []).map(normalBoost), boostIdentity),
  }),
  identity: (s) => s.key,
  children: { levels: levelIdentity, triggers: triggerIdentity, boosts: boostIdentity },
  refs: (s) => [
    ...(s.triggers ?? []).flatMap((t, i): Ref[] => [
      ...(t.metricKey !== undefined ? [{ path: `.triggers[${i}].metricKey`, kind: 'metrics', identity: t.metricKey }] : []),
      ...(t.achievementKey !== undefined ? [{ path: `.triggers[${i}].achievementKey`, kind: 'achievements', identity: t.achievementKey }] : []),
      ...filterRefs('user', `triggers[${i}].userAttributes`, t.userAttributes),
      ...filterRefs('event', `triggers[${i}].eventAttributes`, t.eventAttributes),
    ]),
    ...(s.boosts ?? []).flatMap((b, i) => filterRefs('user', `boosts[${i}].userAttributes`, b.userAttributes)),
  ],
  async create(w, s) {
    const triggers: CreateTrigger[] = [];
    for (const t of s.triggers ?? []) triggers.push(await triggerFields(w, t));
    const boosts: CreateBoost[] = [];
    for (const b of s.boosts ?? []) boosts.push(await boostFields(w, b));
    const { levels: _l, triggers: _t, boosts: _b, ...fields } = s;
    return outcome(await createSystem(w.ctx, w.c, w.scope, { ...fields, levels: (s.levels ?? []).map(levelFields), triggers, boosts }));
  },
  async update(w, s, before) {
    const systemId = await w.ids.system(s.key);
    const problems: Problem[] = [];
    const own = (x: ConfigPointsSystem) => JSON.stringify([x.name, x.description, x.badge, x.maxPoints]);
    if (own(s) !== own(before)) {
      problems.push(...outcome(await updateSystem(w.ctx, w.c, w.scope, {
        id: systemId, name: s.name, description: s.description, badge: s.badge ?? null, maxPoints: s.maxPoints ?? null,
      })));
    }
    const sc: Scope = { tenant: w.scope.tenant, parentId: systemId };
    const have = await childrenOf(w.c, systemId, await loadNames(w.c, w.scope.tenant.id));
    problems.push(...(await sync(w, 'levels', s.levels ?? [], have.levels, levelIdentity, {
      table: 'points_levels',
      create: (l) => insertLevel(w.ctx, w.c, sc, levelFields(l)),
      update: (id, l) => updateLevel(w.ctx, w.c, sc, { id, name: l.name, points: l.points, description: l.description, badge: l.badge ?? null }),
    })));
    problems.push(...(await sync(w, 'triggers', s.triggers ?? [], have.triggers, triggerIdentity, {
      table: 'points_triggers',
      create: async (t) => insertTrigger(w.ctx, w.c, sc, await triggerFields(w, t)),
      update: async (id, t) => updateTrigger(w.ctx, w.c, sc, { ...(await triggerFields(w, t)), id }),
    })));
    problems.push(...(await sync(w, 'boosts', s.boosts ?? [], have.boosts, boostIdentity, {
      table: 'points_boosts',
      create: async (b) => insertBoost(w.ctx, w.c, sc, await boostFields(w, b)),
      update: async (id, b) => updateBoost(w.ctx, w.c, sc, { ...(await boostFields(w, b)), id }),
    })));
    return problems;
  },
  async remove(w, s) {
    await deleteByKey(w.c, w.scope.tenant.id, 'points_systems', s.key);
  },
};
