import typia from 'typia';
import type { Pool } from 'pg';
import { Ctx, identifyAdmin } from '../../context';
import { check, jsonBody } from '../../http/body';
import { unprocessable } from '../../errors';
import { reply, Route } from '../../http/server';
import { RETENTION_DEFAULTS, RetentionConfig, retentionFrom } from '../../domain/retention';
import { canonicalZone } from '../../domain/time';
import { configTx } from '../../store/config-tx';
import type { RetentionSettings } from '../../wire/admin';

const validateSettings = typia.createValidate<RetentionSettings>();

async function settingsOf(db: Pool, tenantId: string): Promise<RetentionConfig> {
  const { rows } = await db.query<{ settings: RetentionSettings }>('SELECT settings FROM retention_settings WHERE tenant_id = $1', [tenantId]);
  return rows[0] ? retentionFrom(rows[0].settings) : RETENTION_DEFAULTS;
}

/** Retention settings (Laurel's; Trophy sets these in its dashboard): control ratio, notification defaults, email-due webhooks. */
export function retentionAdminRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/retention',
      handler: async (req) => reply(200, await settingsOf(ctx.db, (await identifyAdmin(ctx, req)).id)),
    },
    {
      method: 'put',
      pattern: '/admin/v1/retention',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const body = check(validateSettings, jsonBody(req));
        const zone = body.defaultTimeZone === undefined ? undefined : canonicalZone(body.defaultTimeZone);
        if (zone === null) throw unprocessable(`defaultTimeZone: "${body.defaultTimeZone}" is not an IANA time zone`);
        const s = retentionFrom({ ...body, defaultTimeZone: zone });
        const days = s.reactivationEmails.days;
        if (days.some((d, i) => i > 0 && d <= days[i - 1]!)) throw unprocessable('reactivationEmails.days must be ascending');
        await configTx(ctx, tenant, async (c) => {
          await c.query(
            `INSERT INTO retention_settings (tenant_id, settings, updated) VALUES ($1, $2, $3)
             ON CONFLICT (tenant_id) DO UPDATE SET settings = $2, updated = $3`,
            [tenant.id, JSON.stringify(s), new Date(ctx.clock.now())],
          );
        });
        return reply(200, s);
      },
    },
  ];
}
