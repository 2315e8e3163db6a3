import typia from 'typia';
import { NOTIFICATION_TYPES } from '../../../../domain/retention';
import { deleteTemplate, listTemplates } from '../../../../store/messages';
import type { ConfigTemplate } from '../../../../wire/admin';
import { saveTemplate } from '../../writes/messages';
import { defined, Kind, outcome, Writer } from '../kind';

const write = async (w: Writer, t: ConfigTemplate) => outcome(await saveTemplate(w.ctx, w.c, w.scope.tenant.id, t.type, t, 'template'));

/** The tenant's own message templates, one per type that has one; removing one goes back to the shipped default. */
export const templatesKind: Kind<ConfigTemplate> = {
  name: 'templates',
  validate: typia.createValidateEquals<ConfigTemplate[]>(),
  async read(c, tenantId) {
    const own = await listTemplates(c, tenantId);
    return NOTIFICATION_TYPES.flatMap((type) => (own.has(type) ? [templatesKind.normal({ type, ...own.get(type)! })] : []));
  },
  normal: (t) => ({
    type: t.type,
    email: defined({ subject: t.email.subject, html: t.email.html, text: t.email.text }),
    push: { title: t.push.title, body: t.push.body },
  }),
  identity: (t) => t.type,
  refs: () => [],
  create: write,
  update: write,
  async remove(w, before) {
    await deleteTemplate(w.c, w.scope.tenant.id, before.type);
  },
};
