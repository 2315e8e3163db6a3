import { channelsOf, inControl, NotificationType, RetentionConfig } from './retention';
import { DEVICE_TOKENS_FIELD, EMAIL_FIELD, SUBSCRIBED_FIELD } from './user-hash';
import type { MessageChannel } from '../wire/admin';

/**
 * Which channels carry a notice to a user (docs/messages.md): email when the
 * user chose it, has an address and is subscribed; push to each device
 * token's provider. The due logic asks when queuing, the sender again when
 * sending (the user may have changed meanwhile).
 */

export type PushChannel = Exclude<MessageChannel, 'email'>;

const EXPO_TOKEN = /^Expo(nent)?PushToken\[[^\]]+\]$/;
const APNS_TOKEN = /^[0-9a-fA-F]{64}$/;

/** The provider a device token goes to, among the active channels (null: none can carry it). */
export function pushProviderOf(token: string, active: ReadonlySet<MessageChannel>): PushChannel | null {
  if (EXPO_TOKEN.test(token)) return active.has('expo') ? 'expo' : null;
  const apns = active.has('apns');
  const fcm = active.has('fcm');
  if (apns && fcm) return APNS_TOKEN.test(token) ? 'apns' : 'fcm';
  return apns ? 'apns' : fcm ? 'fcm' : null;
}

export function deviceTokens(fields: Map<string, string>): string[] {
  const dt = fields.get(DEVICE_TOKENS_FIELD);
  return dt ? (JSON.parse(dt) as string[]) : [];
}

/** The user's email address when they may be emailed. */
export function emailAddress(fields: Map<string, string>): string | null {
  const e = fields.get(EMAIL_FIELD);
  return e && fields.get(SUBSCRIBED_FIELD) !== '0' ? e : null;
}

/** Where a message on `channel` goes: the address, or the tokens of that provider. */
export function recipientsOf(channel: MessageChannel, fields: Map<string, string>, active: ReadonlySet<MessageChannel>): string[] {
  if (channel === 'email') {
    const e = emailAddress(fields);
    return e ? [e] : [];
  }
  return deviceTokens(fields).filter((t) => pushProviderOf(t, active) === channel);
}

/** The channels a notice of `type` goes on to this user now (none for the control group or without a way to reach them). */
export function messageChannels(cfg: RetentionConfig, fields: Map<string, string>, type: NotificationType, active: ReadonlySet<MessageChannel>): MessageChannel[] {
  if (active.size === 0 || inControl(fields)) return [];
  const chosen = channelsOf(cfg, fields, type);
  const out: MessageChannel[] = [];
  if (chosen.includes('email') && active.has('email') && emailAddress(fields)) out.push('email');
  if (chosen.includes('push')) {
    for (const t of deviceTokens(fields)) {
      const p = pushProviderOf(t, active);
      if (p && !out.includes(p)) out.push(p);
    }
  }
  return out;
}
