import typia from 'typia';
import type { Ctx } from '../../context';
import { invalid } from '../../errors';
import { io, ok, route } from '../define';
import { configTx } from '../../store/config-tx';
import { retentionSettingsOf, saveRetentionSettings } from './writes/retention';
import type { RetentionSettings, RetentionSettingsResponse } from '../../wire/admin';

/** Retention settings (Laurel's; Trophy sets these in its dashboard): control ratio, notification defaults, email-due webhooks. */
export function retentionAdminRoutes(ctx: Ctx) {
  const common = { path: '/admin/v1/retention', tag: 'Admin: retention', auth: 'admin' } as const;
  return [
    route({
      ...common, method: 'get', operationId: 'admin_retention_get',
      summary: 'Retention settings: control ratio, notification defaults, email-due webhooks',
      responses: { 200: { description: 'The settings (defaults until set)', schema: typia.json.schema<RetentionSettingsResponse>() } },
      handler: async ({ tenant }) => ok(await retentionSettingsOf(ctx.db, tenant.id)),
    }),
    route({
      ...common, method: 'put', operationId: 'admin_retention_set',
      summary: 'Replace the retention settings (omitted fields take their defaults)',
      body: io(typia.createValidate<RetentionSettings>(), typia.json.schema<RetentionSettings>()),
      responses: { 200: { description: 'The settings as saved', schema: typia.json.schema<RetentionSettingsResponse>() } },
      handler: async ({ tenant, body }) => {
        const s = await configTx(ctx, tenant, async (c) => {
          const out = await saveRetentionSettings(ctx, c, tenant.id, body);
          if (typeof out === 'string') throw invalid(out);
          return out;
        });
        return ok(s);
      },
    }),
  ];
}
