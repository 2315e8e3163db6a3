import typia from 'typia';
import type { RetentionSettings } from '../../../../wire/admin';
import { retentionFrom } from '../../../../domain/retention';
import { retentionSettingsOf, saveRetentionSettings } from '../../writes/retention';
import { Kind, problem } from '../kind';

/** The tenant's retention settings (the defaults until saved), every field filled in. */
export const retentionKind: Kind<RetentionSettings> = {
  name: 'retention',
  single: true,
  validate: typia.createValidateEquals<RetentionSettings>(),
  read: async (c, tenantId) => [await retentionSettingsOf(c, tenantId)],
  normal: (s) => retentionFrom(s),
  identity: () => 'retention',
  refs: () => [],
  create: async () => problem('settings are never created'),
  async update(w, s) {
    const out = await saveRetentionSettings(w.ctx, w.c, w.scope.tenant.id, s);
    return typeof out === 'string' ? problem(out) : [];
  },
  async remove() {},
};
