import type Redis from 'ioredis';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../log';
import { FLUSH_GROUP, Keys } from '../redis/keys';
import type { Scripts } from '../redis/scripts';
import type { Tenant } from './tenants';
import { isUnavailable, unavailable } from '../http/errors';
import { tx } from './db';

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
    private readonly redis: Redis,
    private readonly scripts: Scripts,
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
    const tk = this.keys.tenant(t.slot);
    const args: string[] = [fields.ver, FLUSH_GROUP];
    for (const [f, v] of fields.entries) args.push(f, v);
    await this.scripts.run('config_publish', [tk.config, tk.stream], args);
    // Read back what is there now: a concurrent publish may have put a newer version.
    return this.fromRedis(t);
  }

  /** Whether `ver` is still the version published in Redis. */
  async isCurrent(t: Tenant, ver: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.tenant(t.slot).config, 'ver')) === ver;
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
    if (!h.ver) throw unavailable('Tenant configuration is not available yet');
    const cfg = parse(h);
    this.cache.set(t.slot, cfg);
    return cfg;
  }

  private async compile(tenantId: string): Promise<{ ver: string; entries: [string, string][] }> {
    // One snapshot, so the version matches the rows read with it.
    return tx(
      this.db,
      async (c) => {
        const ver = await c.query<{ config_version: number }>('SELECT config_version FROM tenants WHERE id = $1', [tenantId]);
        const metrics = await c.query<{ id: string; slot: number; key: string; name: string; unit_type: 'number' | 'currency'; units: string }>(
          'SELECT id, slot, key, name, unit_type, units FROM metrics WHERE tenant_id = $1',
          [tenantId],
        );
        const attrs = await c.query<{ key: string; type: string }>('SELECT key, type FROM attributes WHERE tenant_id = $1', [tenantId]);
        const entries: [string, string][] = metrics.rows.map((m) => [
          `m:${m.key}`,
          JSON.stringify({ id: m.id, slot: m.slot, key: m.key, name: m.name, unitType: m.unit_type, units: m.units } satisfies MetricConfig),
        ]);
        entries.push([
          'attrs',
          JSON.stringify({
            user: attrs.rows.filter((a) => a.type === 'user').map((a) => a.key),
            event: attrs.rows.filter((a) => a.type === 'event').map((a) => a.key),
          }),
        ]);
        return { ver: String(ver.rows[0]?.config_version ?? 0), entries };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }
}

function parse(h: Record<string, string>): TenantConfig {
  const cfg: TenantConfig = {
    ver: h.ver!,
    metricsByKey: new Map(),
    metricsById: new Map(),
    userAttributes: new Set(),
    eventAttributes: new Set(),
  };
  for (const f in h) {
    if (f.startsWith('m:')) {
      const m = JSON.parse(h[f]!) as MetricConfig;
      cfg.metricsByKey.set(m.key, m);
      cfg.metricsById.set(m.id, m);
    }
  }
  const attrs = JSON.parse(h.attrs ?? '{"user":[],"event":[]}') as { user: string[]; event: string[] };
  attrs.user.forEach((k) => cfg.userAttributes.add(k));
  attrs.event.forEach((k) => cfg.eventAttributes.add(k));
  return cfg;
}
