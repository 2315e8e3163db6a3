import type { PoolClient } from 'pg';
import type { MetricConfig, TenantConfig } from './tenant-config';
import { buildProgram, triggerNames, BoostConfig, Filter, LevelConfig, PointsSystemConfig, TriggerConfig } from '../domain/points';
import type { AchievementConfig } from '../domain/achievements';
import type { StreakConfig } from '../domain/streaks';
import type { LeaderboardConfig } from '../domain/leaderboards';
import type { LeagueConfig } from '../domain/leagues';
import { RETENTION_DEFAULTS, RetentionConfig, retentionFrom } from '../domain/retention';
import { LEGACY_TIME_ZONE } from '../domain/time';
import { CONFIG_VERSION_FIELD, CONTROL_RATIO_FIELD, DEFAULT_ZONE_FIELD } from '../domain/config-hash';

// Rows of `SELECT *`, read column by column into the typed config below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

/**
 * The compiled form of a tenant's configuration: hash fields written to Redis
 * by publish, and read back (by any process) into a TenantConfig.
 */
export async function compileTenant(c: PoolClient, tenantId: string): Promise<[string, string][]> {
  const q = async <T>(sql: string) => (await c.query(sql, [tenantId])).rows as T[];
  const metrics = await q<{ id: string; slot: number; key: string; name: string; unit_type: 'number' | 'currency'; units: string }>(
    'SELECT id, slot, key, name, unit_type, units FROM metrics WHERE tenant_id = $1',
  );
  const attrs = await q<{ id: string; key: string; type: string }>('SELECT id, key, type FROM attributes WHERE tenant_id = $1');
  const systems = await q<{ id: string; slot: number; key: string; name: string; description: string; badge_url: string | null; max_points: number | null }>(
    'SELECT id, slot, key, name, description, badge_url, max_points::float8 AS max_points FROM points_systems WHERE tenant_id = $1 ORDER BY slot',
  );
  const triggers = await q<Row>(
    // Points are bigint (a string from pg): as numbers.
    `SELECT t.*, t.points::float8 AS points, t.metric_threshold::float8 AS metric_threshold, s.slot AS system_slot FROM points_triggers t JOIN points_systems s ON s.id = t.system_id WHERE t.tenant_id = $1 ORDER BY t.slot`,
  );
  const levels = await q<Row>('SELECT l.*, l.points::float8 AS points FROM points_levels l WHERE tenant_id = $1 ORDER BY l.points, l.seq');
  const boosts = await q<Row>(
    `SELECT b.*, s.slot AS system_slot, to_char(b.start_date, 'YYYY-MM-DD') AS start_s, to_char(b.end_date, 'YYYY-MM-DD') AS end_s
     FROM points_boosts b JOIN points_systems s ON s.id = b.system_id WHERE b.tenant_id = $1 ORDER BY b.seq`,
  );

  const achievements = await q<Row>('SELECT * FROM achievements WHERE tenant_id = $1 ORDER BY slot');
  const streak = (await q<Row>('SELECT * FROM streak_settings WHERE tenant_id = $1'))[0];
  const retention = (await q<{ settings: RetentionConfig }>('SELECT settings FROM retention_settings WHERE tenant_id = $1'))[0];
  const boards = await q<Row>(
    `SELECT *, to_char(start_date, 'YYYY-MM-DD') AS start_s, to_char(end_date, 'YYYY-MM-DD') AS end_s FROM leaderboards WHERE tenant_id = $1 ORDER BY slot`,
  );
  const attrKey = new Map(attrs.map((a) => [a.id, a.key]));
  // A filter on a deleted attribute can never match.
  const filters = (list: { attributeId: string; attributeValue: string }[]): Filter[] =>
    list.map((f) => [attrKey.get(f.attributeId.toLowerCase()) ?? `\u0000deleted:${f.attributeId}`, f.attributeValue]);

  const entries: [string, string][] = metrics.map((m) => [
    `m:${m.key}`,
    JSON.stringify({ id: m.id, slot: m.slot, key: m.key, name: m.name, unitType: m.unit_type, units: m.units } satisfies MetricConfig),
  ]);
  entries.push([
    'attrs',
    JSON.stringify({ user: attrs.filter((a) => a.type === 'user').map((a) => a.key), event: attrs.filter((a) => a.type === 'event').map((a) => a.key) }),
  ]);
  for (const s of systems) {
    const sys: PointsSystemConfig = {
      id: s.id, slot: s.slot, key: s.key, name: s.name, description: s.description, badgeUrl: s.badge_url, maxPoints: s.max_points,
      triggers: triggers.filter((t) => t.system_id === s.id).map((t): TriggerConfig => ({
        id: t.id, slot: t.slot, systemId: s.id, systemSlot: s.slot, type: t.type, points: t.points, status: t.status,
        metricId: t.metric_id, metricThreshold: t.metric_threshold, achievementId: t.achievement_id, streakLength: t.streak_length,
        timeUnit: t.time_unit, timeInterval: t.time_interval, userAttributes: filters(t.user_attributes), eventAttributes: filters(t.event_attributes),
        block: t.block_if_out_of_points, activated: t.activated ? new Date(t.activated).getTime() : null,
        created: new Date(t.created).toISOString(), updated: new Date(t.updated).toISOString(),
      })),
      levels: levels.filter((l) => l.system_id === s.id).map((l): LevelConfig => ({
        id: l.id, key: l.key, name: l.name, description: l.description, badgeUrl: l.badge_url, points: l.points,
      })),
      boosts: boosts.filter((b) => b.system_id === s.id).map((b): BoostConfig => ({
        id: b.id, systemSlot: s.slot, name: b.name, userId: b.user_id, userAttributes: filters(b.user_attributes),
        start: b.start_s, end: b.end_s, multiplier: Number(b.multiplier), rounding: b.rounding,
      })),
    };
    entries.push([`ps:${s.key}`, JSON.stringify(sys)]);
  }
  const metricSlot = new Map(metrics.map((m) => [m.id, m.slot]));
  const systemSlot = new Map(systems.map((x) => [x.id, x.slot]));
  // A board's or a league's own fields and what it ranks by, with the slots the scripts read.
  const ranked = (r: Row) => ({
    id: r.id, slot: r.slot, key: r.key, name: r.name, description: r.description, status: r.status, rankBy: r.rank_by,
    metricId: r.metric_id, metricSlot: r.metric_id ? (metricSlot.get(r.metric_id) ?? null) : null,
    systemId: r.points_system_id, systemSlot: r.points_system_id ? (systemSlot.get(r.points_system_id) ?? null) : null,
  });
  for (const b of boards) {
    const lb: LeaderboardConfig = {
      ...ranked(b),
      maxParticipants: b.max_participants, start: b.start_s, end: b.end_s, startTime: b.start_time, endTime: b.end_time,
      breakdownIds: b.breakdown_attributes, breakdownKeys: (b.breakdown_attributes as string[]).map((id) => attrKey.get(id) ?? `\u0000deleted:${id}`),
      runUnit: b.run_unit, runInterval: b.run_interval,
    };
    entries.push([`lb:${b.key}`, JSON.stringify(lb)]);
  }
  const leagues = await q<Row>('SELECT * FROM leagues WHERE tenant_id = $1 ORDER BY slot');
  for (const l of leagues) {
    const lg: LeagueConfig = {
      ...ranked(l),
      cadence: l.cadence, weekStart: l.week_start, timeZone: l.time_zone, cohortSize: l.cohort_size, tiers: l.tiers,
      next: l.next_from_run === null ? null : { fromRun: l.next_from_run, cohortSize: l.next_cohort_size, tiers: l.next_tiers },
    };
    entries.push([`lg:${l.key}`, JSON.stringify(lg)]);
  }
  if (streak) {
    const cfg: StreakConfig = {
      enabled: streak.enabled, frequency: streak.frequency, mode: streak.mode, weekStart: streak.week_start,
      // A deleted metric drops out of the conditions.
      metrics: (streak.metrics as { metricId: string; threshold: number }[]).flatMap((m) => {
        const slot = metricSlot.get(m.metricId);
        return slot === undefined ? [] : [{ metricId: m.metricId, slot, threshold: m.threshold }];
      }),
      initialFreezes: streak.initial_freezes, freezeAutoEarnInterval: streak.freeze_auto_earn_interval,
      freezeAutoEarnAmount: streak.freeze_auto_earn_amount, maxFreezes: streak.max_freezes,
    };
    entries.push(['streak', JSON.stringify(cfg)]);
  }
  // Stored settings may predate fields (a migrated row names only its zone): read through the defaults.
  const ret = retention ? retentionFrom(retention.settings) : null;
  // Read by the scripts for users without a zone (see zoneOr).
  entries.push([DEFAULT_ZONE_FIELD, (ret ?? RETENTION_DEFAULTS).defaultTimeZone]);
  if (ret) {
    entries.push(['ret', JSON.stringify(ret)]);
    // Read by the scripts when they create a user (control group).
    entries.push([CONTROL_RATIO_FIELD, String(ret.controlRatio)]);
  }
  for (const a of achievements) {
    const ach: AchievementConfig = {
      id: a.id, slot: a.slot, key: a.key, name: a.name, description: a.description, badgeUrl: a.badge_url, status: a.status,
      trigger: a.trigger, metricId: a.metric_id, metricSlot: a.metric_id ? (metricSlot.get(a.metric_id) ?? null) : null,
      metricValue: a.metric_value === null ? null : Number(a.metric_value), streakLength: a.streak_length,
      prerequisiteIds: a.prerequisite_ids, userAttributes: filters(a.user_attributes), eventAttributes: filters(a.event_attributes),
      updated: new Date(a.updated).toISOString(),
    };
    entries.push([`ach:${a.key}`, JSON.stringify(ach)]);
  }
  return entries;
}

/** One compiled item (JSON) into the config's two maps of it: by key, and by id or slot. */
function index<T extends { key: string }, I>(json: string, byKey: Map<string, T>, byOther: Map<I, T>, other: (item: T) => I): T {
  const item = JSON.parse(json) as T;
  byKey.set(item.key, item);
  byOther.set(other(item), item);
  return item;
}

/** A compiled hash (with its version) back into the server's view. */
export function parseTenant(h: Record<string, string>): TenantConfig {
  const cfg: TenantConfig = {
    ver: h[CONFIG_VERSION_FIELD]!,
    metricsByKey: new Map(),
    metricsById: new Map(),
    userAttributes: new Set(),
    eventAttributes: new Set(),
    systemsByKey: new Map(),
    systemsBySlot: new Map(),
    triggersById: new Map(),
    boostsById: new Map(),
    userBoosts: new Map(),
    streak: h.streak ? (JSON.parse(h.streak) as StreakConfig) : null,
    retention: h.ret ? (JSON.parse(h.ret) as RetentionConfig) : null,
    defaultZone: h[DEFAULT_ZONE_FIELD] || LEGACY_TIME_ZONE,
    boardsByKey: new Map(),
    boardsBySlot: new Map(),
    leaguesByKey: new Map(),
    leaguesBySlot: new Map(),
    achievementsByKey: new Map(),
    achievementsById: new Map(),
    programs: new Map(),
    program(metricId) {
      let p = this.programs.get(metricId);
      if (p === undefined) {
        p = buildProgram([...this.systemsByKey.values()], [...this.achievementsById.values()], this.streak, metricId, triggerNames(this));
        this.programs.set(metricId, p);
      }
      return p;
    },
  };
  for (const f in h) {
    if (f.startsWith('m:')) {
      index(h[f]!, cfg.metricsByKey, cfg.metricsById, (m) => m.id);
    } else if (f.startsWith('lb:')) {
      index(h[f]!, cfg.boardsByKey, cfg.boardsBySlot, (b) => b.slot);
    } else if (f.startsWith('lg:')) {
      index(h[f]!, cfg.leaguesByKey, cfg.leaguesBySlot, (l) => l.slot);
    } else if (f.startsWith('ach:')) {
      index(h[f]!, cfg.achievementsByKey, cfg.achievementsById, (a) => a.id);
    } else if (f.startsWith('ps:')) {
      const s = index(h[f]!, cfg.systemsByKey, cfg.systemsBySlot, (s) => s.slot);
      for (const t of s.triggers) cfg.triggersById.set(t.id, t);
      for (const b of s.boosts) {
        cfg.boostsById.set(b.id, b);
        if (!b.userId) continue;
        const list = cfg.userBoosts.get(b.userId) ?? [];
        list.push(b);
        cfg.userBoosts.set(b.userId, list);
      }
    }
  }
  const attrs = JSON.parse(h.attrs ?? '{"user":[],"event":[]}') as { user: string[]; event: string[] };
  attrs.user.forEach((k) => cfg.userAttributes.add(k));
  attrs.event.forEach((k) => cfg.eventAttributes.add(k));
  return cfg;
}
