import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { check, jsonBody } from '../../http/body';
import { invalid } from '../../errors';
import { reply, Route } from '../../http/server';
import { configTx } from '../../store/config-tx';
import { retentionSettingsOf, saveRetentionSettings } from './writes/retention';
import type { RetentionSettings } from '../../wire/admin';

const validateSettings = typia.createValidate<RetentionSettings>();

/** Retention settings (Laurel's; Trophy sets these in its dashboard): control ratio, notification defaults, email-due webhooks. */
export function retentionAdminRoutes(ctx: Ctx): Route[] {
  return [
    {
      method: 'get',
      pattern: '/admin/v1/retention',
      handler: async (req) => reply(200, await retentionSettingsOf(ctx.db, (await identifyAdmin(ctx, req)).id)),
    },
    {
      method: 'put',
      pattern: '/admin/v1/retention',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const input = check(validateSettings, jsonBody(req));
        const s = await configTx(ctx, tenant, async (c) => {
          const out = await saveRetentionSettings(ctx, c, tenant.id, input);
          if (typeof out === 'string') throw invalid(out);
          return out;
        });
        return reply(200, s);
      },
    },
  ];
}
