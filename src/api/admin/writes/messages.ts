import type { Ctx } from '../../../context';
import { unstorablePath, UNSTORABLE_RULE } from '../../../http/text';
import { keyProblem } from '../../../messages/providers/jwt';
import { templateProblem } from '../../../messages/render';
import { ChannelSettingsOf, putChannel, putTemplate } from '../../../store/messages';
import type { ConfigChannel, ConfigFcmServiceAccount, MessageChannel, MessageTemplateBody, MessageType } from '../../../wire/admin';

// Message channel and template writes, shared by the Admin API and the configuration document.

export const MESSAGE_CHANNELS: MessageChannel[] = ['email', 'apns', 'fcm', 'expo'];

type Db = Parameters<typeof putTemplate>[0];

function httpUrlProblem(name: string, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? null : `${name} must be an http or https URL`;
  } catch {
    return `${name} must be an absolute URL`;
  }
}

/** What a channel's settings must satisfy beyond their shape, or null. `where`: how the settings are named in the message. */
export function channelProblem(kind: MessageChannel, s: ChannelSettingsOf[MessageChannel], where = 'body'): string | null {
  const bad = unstorablePath(s, where);
  if (bad) return `${bad} ${UNSTORABLE_RULE}`;
  switch (kind) {
    case 'email': {
      const e = s as ChannelSettingsOf['email'];
      try {
        const u = new URL(e.smtpUrl);
        if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') return 'smtpUrl must be an smtp:// or smtps:// URL';
        if (!u.hostname) return 'smtpUrl must name a host';
      } catch {
        return 'smtpUrl must be an smtp:// or smtps:// URL';
      }
      return null;
    }
    case 'apns': {
      const a = s as ChannelSettingsOf['apns'];
      const k = keyProblem(a.signingKey, 'ec');
      return k ? `signingKey ${k}` : httpUrlProblem('endpoint', a.endpoint);
    }
    case 'fcm': {
      const f = s as ChannelSettingsOf['fcm'];
      const k = keyProblem(f.serviceAccount.private_key, 'rsa');
      return k ? `serviceAccount.private_key ${k}` : (httpUrlProblem('serviceAccount.token_uri', f.serviceAccount.token_uri) ?? httpUrlProblem('endpoint', f.endpoint));
    }
    default:
      return httpUrlProblem('endpoint', (s as ChannelSettingsOf['expo']).endpoint);
  }
}

/** Store a channel's settings (sealed), or say why they are refused. */
export async function saveChannel<K extends MessageChannel>(ctx: Ctx, db: Db, tenantId: string, kind: K, s: ChannelSettingsOf[K], where = 'body'): Promise<string | null> {
  const problem = channelProblem(kind, s, where);
  if (problem) return problem;
  await putChannel(db, ctx.secrets, tenantId, kind, s, ctx.clock.now());
  return null;
}

/** Store a template of the tenant's own (its known parts only) and answer it, or say why it is refused. */
export async function saveTemplate(ctx: Ctx, db: Db, tenantId: string, type: MessageType, t: MessageTemplateBody, where = 'body'): Promise<MessageTemplateBody | string> {
  const bad = unstorablePath(t, where);
  if (bad) return `${bad} ${UNSTORABLE_RULE}`;
  const problem = templateProblem(t);
  if (problem) return problem;
  const body: MessageTemplateBody = {
    email: { subject: t.email.subject, html: t.email.html, ...(t.email.text !== undefined ? { text: t.email.text } : {}) },
    push: { title: t.push.title, body: t.push.body },
  };
  await putTemplate(db, tenantId, type, body, ctx.clock.now());
  return body;
}

// The configuration document holds channels without their credentials; applying one keeps the target's own.

/** An SMTP URL without its password (the user stays: it says which account the target's password is for). */
export function withoutPassword(raw: string): string {
  try {
    const u = new URL(raw);
    u.password = '';
    return u.toString();
  } catch {
    return raw; // refused on write
  }
}

/** A channel's settings less its credentials: the SMTP password, the .p8 key, the service account's key and key id, the Expo token. */
export function channelWithoutSecrets(kind: MessageChannel, s: ChannelSettingsOf[MessageChannel]): ConfigChannel {
  switch (kind) {
    case 'email': {
      const e = s as ChannelSettingsOf['email'];
      return { channel: 'email', ...e, smtpUrl: withoutPassword(e.smtpUrl) };
    }
    case 'apns': {
      const { signingKey: _key, ...rest } = s as ChannelSettingsOf['apns'];
      return { channel: 'apns', ...rest };
    }
    case 'fcm': {
      const f = s as ChannelSettingsOf['fcm'];
      const { private_key: _key, private_key_id: _id, ...account } = f.serviceAccount;
      return { channel: 'fcm', ...f, serviceAccount: account as ConfigFcmServiceAccount };
    }
    default: {
      const { accessToken: _token, ...rest } = s as ChannelSettingsOf['expo'];
      return { channel: 'expo', ...rest };
    }
  }
}

/** Why a document's channel is refused, at a path relative to it. */
export interface ChannelRefusal {
  path: string;
  message: string;
}

const noStored = (kind: MessageChannel, what: string, path: string): ChannelRefusal => ({
  path,
  message: `The ${kind} channel has no stored ${what} to keep, and a document holds none: set the channel with PUT /admin/v1/channels/${kind} first`,
});

/**
 * A document's channel as settings to store: the credentials are the target's
 * stored ones (`stored`, null when it has none), never the document's.
 */
export function channelWithSecrets(item: ConfigChannel, stored: ChannelSettingsOf[MessageChannel] | null): { settings: ChannelSettingsOf[MessageChannel] } | ChannelRefusal {
  switch (item.channel) {
    case 'email': {
      const { channel: _, ...s } = item;
      let u: URL;
      try {
        u = new URL(s.smtpUrl);
      } catch {
        return { settings: s }; // channelProblem says why
      }
      if (u.password) return { path: '.smtpUrl', message: 'smtpUrl must not hold a password: a document holds no secrets (the stored one is kept)' };
      const old = stored ? new URL((stored as ChannelSettingsOf['email']).smtpUrl) : null;
      if (u.username && !old) return noStored('email', 'SMTP password', '.smtpUrl');
      if (u.username && old?.password) u.password = old.password;
      return { settings: { ...s, smtpUrl: u.toString() } };
    }
    case 'apns': {
      const { channel: _, ...s } = item;
      const key = (stored as ChannelSettingsOf['apns'] | null)?.signingKey;
      return key ? { settings: { ...s, signingKey: key } } : noStored('apns', 'signingKey', '.signingKey');
    }
    case 'fcm': {
      const { channel: _, ...s } = item;
      if ('private_key' in s.serviceAccount || 'private_key_id' in s.serviceAccount) {
        return { path: '.serviceAccount', message: 'private_key and private_key_id are left out: a document holds no secrets (the stored ones are kept)' };
      }
      const old = (stored as ChannelSettingsOf['fcm'] | null)?.serviceAccount;
      if (!old) return noStored('fcm', 'serviceAccount.private_key', '.serviceAccount.private_key');
      const id = old.private_key_id !== undefined ? { private_key_id: old.private_key_id } : {};
      return { settings: { ...s, serviceAccount: { ...s.serviceAccount, private_key: old.private_key, ...id } } };
    }
    default: {
      const { channel: _, ...s } = item;
      const token = (stored as ChannelSettingsOf['expo'] | null)?.accessToken;
      // The token is optional: a channel made without one serves projects without push security.
      return { settings: token !== undefined ? { ...s, accessToken: token } : s };
    }
  }
}
