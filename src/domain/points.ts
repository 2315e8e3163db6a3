import { derivedId } from './ids';
import type { PointsChange, PointsTrigger } from '../wire/app';
import type { AchievementConfig } from './achievements';
import { StreakConfig, StreakProgram, streakProgram } from './streaks';

/**
 * Points systems as the server and the scripts see them, the per-event
 * "program" handed to Lua, and the shaping of points in responses.
 */
export type Filter = [key: string, value: string];
export type Rounding = 'down' | 'up' | 'nearest';

export interface TriggerConfig {
  id: string;
  slot: number;
  systemId: string;
  systemSlot: number;
  type: 'metric' | 'achievement' | 'streak' | 'time' | 'user_creation';
  points: number;
  status: 'active' | 'inactive';
  metricId: string | null;
  metricThreshold: number | null;
  achievementId: string | null;
  streakLength: number | null;
  timeUnit: 'hours' | 'days' | null;
  timeInterval: number | null;
  /** Filters by attribute key (ids resolved at compile time; an unknown attribute never matches). */
  userAttributes: Filter[];
  eventAttributes: Filter[];
  block: boolean;
  /** When it last became active (ms); time triggers count intervals from here or the user's creation. */
  activated: number | null;
  created: string;
  updated: string;
}

export interface LevelConfig {
  id: string;
  key: string;
  name: string;
  description: string;
  badgeUrl: string | null;
  points: number;
}

export interface BoostConfig {
  id: string;
  systemSlot: number;
  name: string;
  userId: string | null;
  userAttributes: Filter[];
  start: string;
  end: string | null;
  multiplier: number;
  rounding: Rounding;
}

export interface PointsSystemConfig {
  id: string;
  slot: number;
  key: string;
  name: string;
  description: string;
  badgeUrl: string | null;
  maxPoints: number | null;
  triggers: TriggerConfig[];
  /** Ascending by threshold. */
  levels: LevelConfig[];
  boosts: BoostConfig[];
}


/** The level a total reaches: the highest whose threshold is at or below it. */
export function levelFor(levels: LevelConfig[], total: number): LevelConfig | null {
  let hit: LevelConfig | null = null;
  for (const l of levels) if (l.points <= total) hit = l;
  return hit;
}

export const levelJson = (l: LevelConfig) => ({ id: l.id, key: l.key, name: l.name, description: l.description, badgeUrl: l.badgeUrl, points: l.points });

/** A trigger as the Application API shows it. */
/** Names of what triggers refer to, from a tenant's config. */
export const triggerNames = (cfg: Pick<PointsLookup, 'metricsById' | 'achievementsById'>) => ({
  metric: (id: string) => cfg.metricsById.get(id)?.name,
  achievement: (id: string) => cfg.achievementsById.get(id)?.name,
});

export function triggerAppJson(t: TriggerConfig, names: ReturnType<typeof triggerNames>): PointsTrigger {
  const out: PointsTrigger = {
    id: t.id,
    type: t.type,
    points: t.points,
    status: t.status,
    userAttributes: t.userAttributes.map(([key, value]) => ({ key, value })),
    created: t.created,
    updated: t.updated,
  };
  if (t.type === 'metric') {
    out.metricId = t.metricId!;
    out.metricName = names.metric(t.metricId!);
    out.metricThreshold = t.metricThreshold!;
    out.eventAttributes = t.eventAttributes.map(([key, value]) => ({ key, value }));
  }
  if (t.type === 'achievement') {
    out.achievementId = t.achievementId!;
    out.achievementName = names.achievement(t.achievementId!);
  }
  if (t.type === 'streak') out.streakLengthThreshold = t.streakLength!;
  if (t.type === 'time') {
    out.timeUnit = t.timeUnit === 'hours' ? 'hour' : 'day';
    out.timeInterval = t.timeInterval!;
  }
  return out;
}

/** Boost status on a given local date. */
export function boostStatusOn(b: { start: string; end: string | null }, date: string): 'scheduled' | 'active' | 'finished' {
  if (b.start > date) return 'scheduled';
  if (b.end !== null && b.end < date) return 'finished';
  return 'active';
}

export const boostJson = (b: BoostConfig, date: string) => ({
  id: b.id, name: b.name, status: boostStatusOn(b, date), start: b.start, end: b.end, multiplier: b.multiplier, rounding: b.rounding,
});

/** Whether a user's attributes satisfy every filter. */
export function filtersMatch(filters: Filter[], attrs: Record<string, string>): boolean {
  return filters.every(([k, v]) => attrs[k] === v);
}

/**
 * A trigger as it stands now, the names it shows included (it changes
 * whenever the trigger is edited or its metric or achievement renamed): each
 * award records the version that paid it, so the award keeps showing that
 * trigger after an edit or a deletion (see points_trigger_versions), and a
 * user's recent awards in Redis can tell whether that is still the trigger
 * as configured (src/services/recent-reads.ts).
 */
export const triggerVersion = (t: TriggerConfig, names: ReturnType<typeof triggerNames>) =>
  derivedId('trigger-version', t.id, t.updated, (t.metricId && names.metric(t.metricId)) || '', (t.achievementId && names.achievement(t.achievementId)) || '');

/**
 * The points program: what the scripts need to evaluate points for one
 * metric (or for a user write, with no metric), in compact fields, built once
 * per config version (lua/lib/20-points.lua and 30-achievements.lua read it).
 */
export interface ProgramTrigger {
  /** id, version (triggerVersion), slot, system slot, system id, points */
  i: string;
  v: string;
  k: number;
  s: number;
  si: string;
  p: number;
  ua: Filter[];
  /** 1: an award that would take the total below zero blocks the event. */
  b: 0 | 1;
}
export interface ProgramMetricTrigger extends ProgramTrigger {
  /** threshold: one award per new multiple of it */
  th: number;
  ea: Filter[];
}
export interface ProgramTimeTrigger extends ProgramTrigger {
  /** interval (ms), when it last became active (ms) */
  iv: number;
  act: number;
}
export interface ProgramStreakTrigger extends ProgramTrigger {
  /** fires on each multiple of this streak length */
  len: number;
}
/** A boost: id, system slot, multiplier, rounding, first and last local date ('' when open). */
export interface ProgramBoost {
  i: string;
  s: number;
  m: number;
  r: Rounding;
  st: string;
  en: string;
  ua: Filter[];
}
/** Achievements: completed at a metric total `v` of metric slot `ms`, when prerequisites `pre` (slots, -1 unknown) are, or at streak length `len`. */
export interface ProgramMetricAchievement { i: string; k: number; v: number; ms: number; ua: Filter[]; ea: Filter[] }
export interface ProgramCompositeAchievement { i: string; k: number; pre: number[]; ua: Filter[] }
export interface ProgramStreakAchievement { i: string; k: number; len: number; ua: Filter[] }
export interface PointsProgram {
  mt: ProgramMetricTrigger[];
  uc: ProgramTrigger[];
  tt: ProgramTimeTrigger[];
  st: ProgramStreakTrigger[];
  bo: ProgramBoost[];
  /** maxPoints by system slot */
  max: Record<string, number>;
  /** triggers fired by completing an achievement, by achievement slot */
  apt: Record<string, ProgramTrigger[]>;
  am: ProgramMetricAchievement[];
  ac: ProgramCompositeAchievement[];
  as: ProgramStreakAchievement[];
  sk: StreakProgram;
}
/** A program as the scripts receive it (JSON); only programText makes one. */
export type ProgramText = string & { readonly __program: true };
export const programText = (p: PointsProgram) => JSON.stringify(p) as ProgramText;

export function pointsProgram(
  systems: PointsSystemConfig[], achievements: AchievementConfig[], streak: StreakConfig | null, metricId: string | null, names: ReturnType<typeof triggerNames>,
): PointsProgram {
  const p: PointsProgram = { mt: [], uc: [], tt: [], st: [], bo: [], max: {}, apt: {}, am: [], ac: [], as: [], sk: streakProgram(streak) };
  const slotOf = new Map(achievements.map((a) => [a.id, a.slot]));
  for (const s of systems) {
    if (s.maxPoints !== null) p.max[s.slot] = s.maxPoints;
    for (const t of s.triggers) {
      if (t.status !== 'active') continue;
      const base: ProgramTrigger = { i: t.id, v: triggerVersion(t, names), k: t.slot, s: s.slot, si: s.id, p: t.points, ua: t.userAttributes, b: t.block ? 1 : 0 };
      if (t.type === 'metric' && t.metricId === metricId) p.mt.push({ ...base, th: t.metricThreshold!, ea: t.eventAttributes });
      if (t.type === 'user_creation') p.uc.push(base);
      if (t.type === 'time') p.tt.push({ ...base, b: 0, iv: intervalMs(t), act: t.activated ?? 0 });
      if (t.type === 'streak') p.st.push({ ...base, b: 0, len: t.streakLength! });
      const aslot = t.type === 'achievement' ? slotOf.get(t.achievementId!) : undefined;
      if (aslot !== undefined) (p.apt[aslot] ??= []).push({ ...base, b: 0 });
    }
    for (const b of s.boosts) if (!b.userId) p.bo.push(programBoost(b));
  }
  // Achievements this evaluation may complete: the metric's own, and composites.
  // Completions are reported in this order: lowest threshold first, then creation order.
  const active = achievements.filter((a) => a.status === 'active').sort((x, y) => (x.metricValue ?? 0) - (y.metricValue ?? 0) || x.slot - y.slot);
  p.am = active
    .filter((a) => a.trigger === 'metric' && (metricId === REVIEW ? a.eventAttributes.length === 0 : a.metricId === metricId))
    .map((a) => ({ i: a.id, k: a.slot, v: a.metricValue!, ms: a.metricSlot!, ua: a.userAttributes, ea: a.eventAttributes }));
  p.ac = active
    .filter((a) => a.trigger === 'achievement')
    .map((a) => ({ i: a.id, k: a.slot, pre: a.prerequisiteIds.map((id) => slotOf.get(id) ?? -1), ua: a.userAttributes }));
  p.as = active.filter((a) => a.trigger === 'streak').map((a) => ({ i: a.id, k: a.slot, len: a.streakLength!, ua: a.userAttributes }));
  return p;
}

export const buildProgram = (...a: Parameters<typeof pointsProgram>) => programText(pointsProgram(...a));

const programBoost = (b: BoostConfig, ua = b.userAttributes): ProgramBoost =>
  ({ i: b.id, s: b.systemSlot, m: b.multiplier, r: b.rounding, st: b.start, en: b.end ?? '', ua });

/**
 * The program of a review (backfill): every active metric achievement, each
 * checked against its own metric's total. Those with event filters are left
 * out: past events cannot be re-checked against them.
 */
export const REVIEW = '*review*';

export const intervalMs = (t: TriggerConfig) => t.timeInterval! * (t.timeUnit === 'hours' ? 3_600_000 : 86_400_000);

/** Identifies the active time triggers: when it changes, every user must be (re)scheduled. */
export function timeSignature(systems: Iterable<PointsSystemConfig>): string {
  const parts: string[] = [];
  for (const s of systems) for (const t of s.triggers) if (t.type === 'time' && t.status === 'active') parts.push(`${t.id}@${t.activated}/${intervalMs(t)}`);
  return parts.sort().join(',');
}

/** A user's own boosts, in the program's shape (passed separately: there may be many users with boosts). */
export function userBoostsArg(boosts: BoostConfig[] | undefined): ProgramBoost[] {
  return boosts?.length ? boosts.map((b) => programBoost(b, [])) : [];
}

/** An award's id: derived, so the response and the stored row agree and a replayed batch adds nothing. */
export const awardId = (opId: string, triggerId: string, index: number) => derivedId('award', opId, triggerId, String(index));

/** One award as the script reports it. */
export interface ScriptAward {
  /** trigger id */
  t: string;
  /** trigger version (absent in records written before versions existed) */
  v?: string;
  /** system id */
  si: string;
  /** points actually added */
  a: number;
  /** system total after it */
  tot: number;
  /** ids of the boosts that multiplied it */
  bo: string[];
}
/** Changes to one system in one script call, keyed by system slot. */
export type ScriptPoints = Record<string, { b: number; a: number; aw: ScriptAward[] }>;

/** Lua encodes an empty table as an object: read a list that may be `{}`. */
const list = <T>(x: unknown): T[] => (Array.isArray(x) ? (x as T[]) : []);

export interface PointsLookup {
  systemsBySlot: Map<number, PointsSystemConfig>;
  triggersById: Map<string, TriggerConfig>;
  boostsById: Map<string, BoostConfig>;
  metricsById: Map<string, { name: string }>;
  achievementsById: Map<string, { name: string }>;
}

/** The system fields every points object in a response carries. */
export const systemJson = (s: PointsSystemConfig) => ({
  id: s.id, key: s.key, name: s.name, description: s.description || null, badgeUrl: s.badgeUrl, maxPoints: s.maxPoints,
});

/** An award's boosts the config still has, as a response shows them (a loop: on Node 20 flatMap costs 0.3-0.6 µs on arrays this small). */
export function boostsJson(cfg: Pick<PointsLookup, 'boostsById'>, ids: string[], date: string) {
  const out: ReturnType<typeof boostJson>[] = [];
  for (const id of ids) {
    const b = cfg.boostsById.get(id);
    if (b) out.push(boostJson(b, date));
  }
  return out;
}

/**
 * The `points` map of an event (or achievement) response: only the systems
 * that changed, with their awards, and `level` only when it changed.
 */
export function pointsResponse(cfg: PointsLookup, changes: ScriptPoints, opId: string, at: number, date: string): Record<string, PointsChange> {
  const out: Record<string, PointsChange> = {};
  const when = new Date(at).toISOString();
  for (const slot in changes) {
    const s = cfg.systemsBySlot.get(Number(slot));
    if (!s) continue;
    const c = changes[slot]!;
    const awards = list<ScriptAward>(c.aw).map((a, i) => {
      const t = cfg.triggersById.get(a.t);
      return {
        id: awardId(opId, a.t, i),
        awarded: a.a,
        date: when,
        total: a.tot,
        trigger: t ? triggerAppJson(t, triggerNames(cfg)) : { id: a.t },
        boosts: boostsJson(cfg, list<string>(a.bo), date),
      };
    });
    // Object.assign, not a spread with more fields after it: on Node 20 that copies
    // through V8's slow path, about 2–9 µs an object (domain/leaderboards.ts boardsResponse).
    const entry: PointsChange = Object.assign({}, systemJson(s), { total: c.a, added: c.a - c.b, awards });
    const before = levelFor(s.levels, c.b);
    const after = levelFor(s.levels, c.a);
    if (before?.id !== after?.id) entry.level = after ? levelJson(after) : null;
    out[s.key] = entry;
  }
  return out;
}

/**
 * Each system a change moved: its points as a response shows them, and its
 * level change (null when the level stayed). What live updates and webhooks
 * both announce.
 */
export function systemChanges(cfg: PointsLookup, changes: ScriptPoints, opId: string, at: number, date: string) {
  const shaped = pointsResponse(cfg, changes, opId, at, date);
  const out: { system: PointsSystemConfig; points: unknown; level: Record<string, unknown> | null }[] = [];
  for (const slot in changes) {
    const s = cfg.systemsBySlot.get(Number(slot));
    if (!s) continue;
    const { b, a } = changes[slot]!;
    const from = levelFor(s.levels, b);
    const to = levelFor(s.levels, a);
    const level = from?.id === to?.id ? null : { points: Object.assign({}, systemJson(s), { total: a }), previousLevel: from ? levelJson(from) : null, newLevel: to ? levelJson(to) : null };
    out.push({ system: s, points: shaped[s.key], level });
  }
  return out;
}
