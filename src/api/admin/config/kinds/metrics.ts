import typia from 'typia';
import type { ConfigMetric } from '../../../../wire/admin';
import { deleteByKey } from '../../../../store/config-keys';
import { metricsOf } from '../../../../store/metrics';
import { createMetric, updateMetric } from '../../writes/metrics';
import { byIdentity, Kind, outcome } from '../kind';

export const metricsKind: Kind<ConfigMetric> = {
  name: 'metrics',
  validate: typia.createValidateEquals<ConfigMetric[]>(),
  async read(c, tenantId) {
    return byIdentity((await metricsOf(c, tenantId)).map((r) => ({ key: r.key, name: r.name, unitType: r.unit_type, units: r.units })), (m) => m.key);
  },
  normal: (m) => ({ key: m.key, name: m.name, unitType: m.unitType ?? 'number', units: (m.unitType === 'currency' ? m.units?.toUpperCase() : m.units) ?? '' }),
  identity: (m) => m.key,
  refs: () => [],
  create: async (w, m) => outcome(await createMetric(w.ctx, w.c, w.scope, m)),
  update: async (w, m) => outcome(await updateMetric(w.ctx, w.c, w.scope, { ...m, id: await w.ids.metric(m.key) })),
  async remove(w, m) {
    await deleteByKey(w.c, w.scope.tenant.id, 'metrics', m.key);
  },
};
