import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { RetentionConfig, retentionFrom } from '../../../domain/retention';
import { canonicalZone } from '../../../domain/time';
import type { RetentionSettings } from '../../../wire/admin';
import { putRetentionSettings, retentionSettingsOf } from '../../../store/retention-settings';

// Retention settings writes, shared by the Admin API and the configuration document.

export { retentionSettingsOf };

/** Store a tenant's retention settings (in a config transaction): what is stored, or why they are refused. */
export async function saveRetentionSettings(ctx: Ctx, c: PoolClient, tenantId: string, input: RetentionSettings): Promise<RetentionConfig | string> {
  const zone = input.defaultTimeZone === undefined ? undefined : canonicalZone(input.defaultTimeZone);
  if (zone === null) return `defaultTimeZone: "${input.defaultTimeZone}" is not an IANA time zone`;
  const s = retentionFrom({ ...input, defaultTimeZone: zone });
  const days = s.reactivationEmails.days;
  if (days.some((d, i) => i > 0 && d <= days[i - 1]!)) return 'reactivationEmails.days must be ascending';
  await putRetentionSettings(c, tenantId, s, new Date(ctx.clock.now()));
  return s;
}
