import typia from 'typia';
import type { ConfigAttribute } from '../../../../wire/admin';
import { attributesOf } from '../../../../store/attributes';
import { deleteAttributeByKey } from '../../../../store/config-keys';
import { createAttribute, updateAttribute } from '../../writes/attributes';
import { byIdentity, Kind, outcome } from '../kind';

const identity = (a: ConfigAttribute) => `${a.type}:${a.key}`;

export const attributesKind: Kind<ConfigAttribute> = {
  name: 'attributes',
  validate: typia.createValidateEquals<ConfigAttribute[]>(),
  async read(c, tenantId) {
    return byIdentity((await attributesOf(c, tenantId)).map((r) => ({ key: r.key, name: r.name, type: r.type })), identity);
  },
  normal: (a) => ({ key: a.key, name: a.name, type: a.type }),
  identity,
  refs: () => [],
  create: async (w, a) => outcome(await createAttribute(w.ctx, w.c, w.scope, a)),
  update: async (w, a) => outcome(await updateAttribute(w.ctx, w.c, w.scope, { id: await w.ids.attribute(a.type, a.key), name: a.name })),
  async remove(w, a) {
    await deleteAttributeByKey(w.c, w.scope.tenant.id, a.type, a.key);
  },
};
