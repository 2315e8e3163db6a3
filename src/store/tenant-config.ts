import type { RedisClient } from '../redis/client';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../observability/log';
import { FLUSH_GROUP, Keys } from '../redis/keys';
import type { Engine } from '../engine';
import { configPublishCall } from '../engine';
import type { Tenant } from './tenants';
import { isUnavailable, unavailable } from '../errors';
import { tx } from './db';
import { compileTenant, parseTenant } from './compile';
import { CONFIG_VERSION_FIELD } from '../domain/config-hash';
import { triggerAppJson, triggerNames, triggerVersion } from '../domain/points';
import type { BoostConfig, PointsSystemConfig, ProgramText, TriggerConfig } from '../domain/points';
import type { AchievementConfig } from '../domain/achievements';
import type { StreakConfig } from '../domain/streaks';
import type { LeaderboardConfig } from '../domain/leaderboards';
import type { LeagueConfig } from '../domain/leagues';
import type { RetentionConfig } from '../domain/retention';

export interface MetricConfig {
  id: string;
  /** Short per-tenant number used in Redis field names. */
  slot: number;
  key: string;
  name: string;
  unitType: 'number' | 'currency';
  units: string;
}

/** A tenant's configuration as compiled for the scripts and the server. */
export interface TenantConfig {
  ver: string;
  metricsByKey: Map<string, MetricConfig>;
  metricsById: Map<string, MetricConfig>;
  userAttributes: Set<string>;
  eventAttributes: Set<string>;
  systemsByKey: Map<string, PointsSystemConfig>;
  systemsBySlot: Map<number, PointsSystemConfig>;
  triggersById: Map<string, TriggerConfig>;
  boostsById: Map<string, BoostConfig>;
  boardsByKey: Map<string, LeaderboardConfig>;
  boardsBySlot: Map<number, LeaderboardConfig>;
  leaguesByKey: Map<string, LeagueConfig>;
  leaguesBySlot: Map<number, LeagueConfig>;
  /** Null until streaks are configured. */
  streak: StreakConfig | null;
  /** Null until retention settings are saved (the defaults apply). */
  retention: RetentionConfig | null;
  /**
   * The zone of users who never sent one (retention settings'
   * defaultTimeZone): every place that needs a user's zone asks zoneOr /
   * zoneIn with it, and the scripts read the same from the hash (DEFAULT_ZONE_FIELD).
   */
  defaultZone: string;
  achievementsByKey: Map<string, AchievementConfig>;
  achievementsById: Map<string, AchievementConfig>;
  /** Boosts aimed at one user, by user id. */
  userBoosts: Map<string, BoostConfig[]>;
  /** Cache of `program()` results. */
  programs: Map<string | null, ProgramText>;
  /** The points program of events on a metric (null: a user write with no metric). */
  program(metricId: string | null): ProgramText;
}

/**
 * Postgres holds the configuration; Redis holds a compiled copy (one hash per
 * tenant, with a version). Every script checks the version its caller used,
 * so a process with an old copy is told to reload before anything is written.
 */
export class TenantConfigs {
  private readonly cache = new Map<number, TenantConfig>();
  private readonly loading = new Map<number, Promise<TenantConfig>>();

  constructor(
    private readonly db: Pool,
    private readonly redis: RedisClient,
    private readonly engine: Engine,
    private readonly keys: Keys,
    private readonly log: Logger,
  ) {}

  async get(t: Tenant): Promise<TenantConfig> {
    return this.cache.get(t.slot) ?? this.reload(t);
  }

  /** Reload after a script said our version is stale (one load at a time per tenant). */
  reload(t: Tenant): Promise<TenantConfig> {
    let p = this.loading.get(t.slot);
    if (!p) {
      p = this.load(t).finally(() => this.loading.delete(t.slot));
      this.loading.set(t.slot, p);
    }
    return p;
  }

  /** Compile from Postgres and publish to Redis; call after every committed config change. */
  async publish(t: Tenant): Promise<TenantConfig> {
    const fields = await this.compile(t.id);
    // Before the program reaches Redis: no award can name a version not stored yet.
    await this.keepTriggerVersions(t.id, parseTenant(Object.fromEntries([[CONFIG_VERSION_FIELD, fields.ver], ...fields.entries])));
    const tk = this.keys.tenant(t.slot);
    await configPublishCall(this.engine, tk, { ver: fields.ver, group: FLUSH_GROUP, fields: fields.entries });
    // Read back what is there now: a concurrent publish may have put a newer version.
    return this.fromRedis(t);
  }

  /** Store each trigger's current version as an award will show it (once; a version never changes). */
  private async keepTriggerVersions(tenantId: string, cfg: TenantConfig): Promise<void> {
    const names = triggerNames(cfg);
    const rows = [...cfg.triggersById.values()].map((tr) => ({ id: triggerVersion(tr, names), t: tr.id, j: triggerAppJson(tr, names) }));
    if (!rows.length) return;
    await this.db.query(
      `INSERT INTO points_trigger_versions (id, tenant_id, trigger_id, trigger)
       SELECT x.id, $1, x.t, x.j FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, t uuid, j jsonb) ON CONFLICT (id) DO NOTHING`,
      [tenantId, JSON.stringify(rows)],
    );
  }

  /** Whether `ver` is still the version published in Redis. */
  async isCurrent(t: Tenant, ver: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.tenant(t.slot).config, CONFIG_VERSION_FIELD)) === ver;
  }

  forget(slot: number): void {
    this.cache.delete(slot);
  }

  /** Bump the tenant's config version inside a config-changing transaction. */
  static async bump(c: PoolClient, tenantId: string): Promise<void> {
    await c.query('UPDATE tenants SET config_version = config_version + 1 WHERE id = $1', [tenantId]);
  }

  private async load(t: Tenant): Promise<TenantConfig> {
    try {
      return await this.publish(t);
    } catch (err) {
      // Postgres down: serve what Redis holds, so events keep flowing.
      if (!isUnavailable(err)) throw err;
      this.log.warn('config load from postgres failed, using the copy in redis', { tenant: t.id, err: (err as Error).message });
      return this.fromRedis(t);
    }
  }

  private async fromRedis(t: Tenant): Promise<TenantConfig> {
    const h = await this.redis.hgetall(this.keys.tenant(t.slot).config);
    if (!h[CONFIG_VERSION_FIELD]) throw unavailable('Tenant configuration is not available yet');
    const cfg = parseTenant(h);
    this.cache.set(t.slot, cfg);
    return cfg;
  }

  private async compile(tenantId: string): Promise<{ ver: string; entries: [string, string][] }> {
    // One snapshot, so the version matches the rows read with it.
    return tx(
      this.db,
      async (c) => {
        const ver = await c.query<{ config_version: number }>('SELECT config_version FROM tenants WHERE id = $1', [tenantId]);
        return { ver: String(ver.rows[0]?.config_version ?? 0), entries: await compileTenant(c, tenantId) };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }
}
