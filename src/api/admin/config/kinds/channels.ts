import typia from 'typia';
import { deleteChannel, getChannel, listChannels } from '../../../../store/messages';
import type { ConfigChannel } from '../../../../wire/admin';
import { channelWithoutSecrets, channelWithSecrets, MESSAGE_CHANNELS, saveChannel } from '../../writes/messages';
import { defined, Kind, problem, Problem, Writer } from '../kind';

/** A URL as `URL` writes it (an invalid one as given: refused on write). */
function canonical(raw: string): string {
  try {
    return new URL(raw).toString();
  } catch {
    return raw;
  }
}

/** Store a document's channel with the target's own credentials. */
async function write(w: Writer, item: ConfigChannel): Promise<Problem[]> {
  const stored = await getChannel(w.c, w.ctx.secrets, w.scope.tenant.id, item.channel);
  const r = channelWithSecrets(item, stored);
  if (!('settings' in r)) return problem(r.message, r.path);
  const refused = await saveChannel(w.ctx, w.c, w.scope.tenant.id, item.channel, r.settings, 'channel');
  return refused ? problem(refused) : [];
}

/**
 * Configured message channels, one item each (email, apns, fcm, expo), less
 * their credentials: an applied channel keeps the target's stored ones, and
 * one the target lacks is refused when it needs a credential the document
 * cannot carry (docs/environments.md).
 */
export const channelsKind: Kind<ConfigChannel> = {
  name: 'channels',
  validate: typia.createValidateEquals<ConfigChannel[]>(),
  async read(c, tenantId, _names, box) {
    const all = await listChannels(c, box, tenantId);
    return MESSAGE_CHANNELS.flatMap((kind) => (all[kind] ? [channelsKind.normal(channelWithoutSecrets(kind, all[kind]!))] : []));
  },
  normal(x) {
    switch (x.channel) {
      case 'email':
        return defined({
          channel: x.channel, smtpUrl: canonical(x.smtpUrl), from: defined({ email: x.from.email, name: x.from.name }), replyTo: x.replyTo, status: x.status,
        });
      case 'apns':
        return defined({ channel: x.channel, teamId: x.teamId, keyId: x.keyId, bundleId: x.bundleId, environment: x.environment, endpoint: x.endpoint });
      case 'fcm': {
        const { project_id, client_email, token_uri, ...rest } = x.serviceAccount;
        return defined({ channel: x.channel, serviceAccount: { project_id, client_email, token_uri, ...rest }, endpoint: x.endpoint });
      }
      default:
        return defined({ channel: x.channel, endpoint: x.endpoint });
    }
  },
  identity: (x) => x.channel,
  refs: () => [],
  create: write,
  update: write,
  async remove(w, before) {
    await deleteChannel(w.c, w.scope.tenant.id, before.channel);
  },
};
