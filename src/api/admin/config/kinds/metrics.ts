import typia from 'typia';
import type { ConfigMetric } from '../../../../wire/admin';
import { createMetric, updateMetric } from '../../writes/metrics';
import { byIdentity, Kind, outcome } from '../kind';

export const metricsKind: Kind<ConfigMetric> = {
  name: 'metrics',
  validate: typia.createValidateEquals<ConfigMetric[]>(),
  async read(c, tenantId) {
    const { rows } = await c.query<{ key: string; name: string; unit_type: 'number' | 'currency'; units: string }>(
      'SELECT key, name, unit_type, units FROM metrics WHERE tenant_id = $1',
      [tenantId],
    );
    return byIdentity(rows.map((r) => ({ key: r.key, name: r.name, unitType: r.unit_type, units: r.units })), (m) => m.key);
  },
  normal: (m) => ({ key: m.key, name: m.name, unitType: m.unitType ?? 'number', units: (m.unitType === 'currency' ? m.units?.toUpperCase() : m.units) ?? '' }),
  identity: (m) => m.key,
  refs: () => [],
  create: async (w, m) => outcome(await createMetric(w.ctx, w.c, w.scope, m)),
  update: async (w, m) => outcome(await updateMetric(w.ctx, w.c, w.scope, { ...m, id: await w.ids.metric(m.key) })),
  async remove(w, m) {
    await w.c.query('DELETE FROM metrics WHERE tenant_id = $1 AND key = $2', [w.scope.tenant.id, m.key]);
  },
};
