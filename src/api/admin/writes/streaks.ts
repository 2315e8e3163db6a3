import type { Pool, PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import type { StreakSettings, StreakSettingsResponse } from '../../../wire/admin';

// Streak settings writes, shared by the Admin API and the configuration document.

export const STREAK_DEFAULTS: StreakSettingsResponse = {
  enabled: false, frequency: 'daily', metrics: [], mode: 'all', weekStart: 'monday',
  initialFreezes: 0, freezeAutoEarnInterval: 0, freezeAutoEarnAmount: 0, maxFreezes: 0,
};

export async function streakSettingsOf(db: Pool | PoolClient, tenantId: string): Promise<StreakSettingsResponse> {
  const { rows } = await db.query('SELECT * FROM streak_settings WHERE tenant_id = $1', [tenantId]);
  const r = rows[0];
  if (!r) return STREAK_DEFAULTS;
  return {
    enabled: r.enabled, frequency: r.frequency, metrics: r.metrics, mode: r.mode, weekStart: r.week_start,
    initialFreezes: r.initial_freezes, freezeAutoEarnInterval: r.freeze_auto_earn_interval,
    freezeAutoEarnAmount: r.freeze_auto_earn_amount, maxFreezes: r.max_freezes,
  };
}

/** Store a tenant's streak settings (in a config transaction), or say why they are refused. */
export async function saveStreakSettings(ctx: Ctx, c: PoolClient, tenantId: string, b: StreakSettings): Promise<string | null> {
  if (b.enabled && b.metrics.length === 0) return 'An enabled streak needs at least one metric';
  const ids = b.metrics.map((m) => m.metricId.toLowerCase());
  if (new Set(ids).size !== ids.length) return 'Each metric may appear once';
  const s = { ...STREAK_DEFAULTS, ...b, metrics: b.metrics.map((m) => ({ metricId: m.metricId.toLowerCase(), threshold: m.threshold })) };
  if (s.initialFreezes > s.maxFreezes) return 'initialFreezes cannot exceed maxFreezes';
  const found = await c.query('SELECT id FROM metrics WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [tenantId, ids]);
  if (found.rowCount !== ids.length) return 'Unknown metric in metrics';
  await c.query(
    `INSERT INTO streak_settings (tenant_id, enabled, frequency, metrics, mode, week_start, initial_freezes,
       freeze_auto_earn_interval, freeze_auto_earn_amount, max_freezes, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (tenant_id) DO UPDATE SET enabled = $2, frequency = $3, metrics = $4, mode = $5, week_start = $6,
       initial_freezes = $7, freeze_auto_earn_interval = $8, freeze_auto_earn_amount = $9, max_freezes = $10, updated = $11`,
    [tenantId, s.enabled, s.frequency, JSON.stringify(s.metrics), s.mode, s.weekStart, s.initialFreezes,
      s.freezeAutoEarnInterval, s.freezeAutoEarnAmount, s.maxFreezes, new Date(ctx.clock.now())],
  );
  return null;
}
