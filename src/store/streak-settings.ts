import type { Pool, PoolClient } from 'pg';
import type { StreakSettingsResponse } from '../wire/admin';

/** What a tenant that never set its streak has. */
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

/** Store a tenant's streak settings (checked by the caller). */
export async function putStreakSettings(c: PoolClient, tenantId: string, s: StreakSettingsResponse, updated: Date): Promise<void> {
  await c.query(
    `INSERT INTO streak_settings (tenant_id, enabled, frequency, metrics, mode, week_start, initial_freezes,
       freeze_auto_earn_interval, freeze_auto_earn_amount, max_freezes, updated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (tenant_id) DO UPDATE SET enabled = $2, frequency = $3, metrics = $4, mode = $5, week_start = $6,
       initial_freezes = $7, freeze_auto_earn_interval = $8, freeze_auto_earn_amount = $9, max_freezes = $10, updated = $11`,
    [tenantId, s.enabled, s.frequency, JSON.stringify(s.metrics), s.mode, s.weekStart, s.initialFreezes,
      s.freezeAutoEarnInterval, s.freezeAutoEarnAmount, s.maxFreezes, updated],
  );
}
