import type { Pool, PoolClient } from 'pg';
import { RETENTION_DEFAULTS, RetentionConfig, retentionFrom } from '../domain/retention';
import type { RetentionSettings } from '../wire/admin';

/** A tenant's retention settings, the defaults when never set. */
export async function retentionSettingsOf(db: Pool | PoolClient, tenantId: string): Promise<RetentionConfig> {
  const { rows } = await db.query<{ settings: RetentionSettings }>('SELECT settings FROM retention_settings WHERE tenant_id = $1', [tenantId]);
  return rows[0] ? retentionFrom(rows[0].settings) : RETENTION_DEFAULTS;
}

/** Store a tenant's retention settings (checked by the caller). */
export async function putRetentionSettings(c: PoolClient, tenantId: string, s: RetentionConfig, updated: Date): Promise<void> {
  await c.query(
    `INSERT INTO retention_settings (tenant_id, settings, updated) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id) DO UPDATE SET settings = $2, updated = $3`,
    [tenantId, JSON.stringify(s), updated],
  );
}
