import type { Pool, PoolClient } from 'pg';
import type { Ctx } from '../../../context';
import { RETENTION_DEFAULTS, RetentionConfig, retentionFrom } from '../../../domain/retention';
import { canonicalZone } from '../../../domain/time';
import type { RetentionSettings } from '../../../wire/admin';

// Retention settings writes, shared by the Admin API and the configuration document.

export async function retentionSettingsOf(db: Pool | PoolClient, tenantId: string): Promise<RetentionConfig> {
  const { rows } = await db.query<{ settings: RetentionSettings }>('SELECT settings FROM retention_settings WHERE tenant_id = $1', [tenantId]);
  return rows[0] ? retentionFrom(rows[0].settings) : RETENTION_DEFAULTS;
}

/** Store a tenant's retention settings (in a config transaction): what is stored, or why they are refused. */
export async function saveRetentionSettings(ctx: Ctx, c: PoolClient, tenantId: string, input: RetentionSettings): Promise<RetentionConfig | string> {
  const zone = input.defaultTimeZone === undefined ? undefined : canonicalZone(input.defaultTimeZone);
  if (zone === null) return `defaultTimeZone: "${input.defaultTimeZone}" is not an IANA time zone`;
  const s = retentionFrom({ ...input, defaultTimeZone: zone });
  const days = s.reactivationEmails.days;
  if (days.some((d, i) => i > 0 && d <= days[i - 1]!)) return 'reactivationEmails.days must be ascending';
  await c.query(
    `INSERT INTO retention_settings (tenant_id, settings, updated) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id) DO UPDATE SET settings = $2, updated = $3`,
    [tenantId, JSON.stringify(s), new Date(ctx.clock.now())],
  );
  return s;
}
