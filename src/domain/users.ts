import type { User } from '../wire/app';
import {
  attributeField, attributesIn, CONTROL_FIELD, CREATED_FIELD, DEVICE_TOKENS_FIELD, EMAIL_FIELD, NAME_FIELD, SUBSCRIBED_FIELD, UPDATED_FIELD, ZONE_FIELD,
} from './user-hash';

/** A user's profile as the API takes it; stored in the user hash (domain/user-hash names the fields). */
export interface UserFields {
  email?: string;
  name?: string;
  tz?: string | null;
  deviceTokens?: string[] | null;
  subscribeToEmails?: boolean;
  attributes?: Record<string, string>;
}

/** The hash fields userJson reads, besides attributes. */
export const PROFILE_FIELDS = [EMAIL_FIELD, NAME_FIELD, ZONE_FIELD, DEVICE_TOKENS_FIELD, SUBSCRIBED_FIELD, CREATED_FIELD, UPDATED_FIELD, CONTROL_FIELD];

/** The hash fields a profile update sets (tz already canonical; '' clears). */
export function userPatch(u: UserFields, tz: string | null | undefined): Record<string, string> {
  const p: Record<string, string> = {};
  if (u.email !== undefined) p[EMAIL_FIELD] = u.email;
  if (u.name !== undefined) p[NAME_FIELD] = u.name;
  if (tz !== undefined) p[ZONE_FIELD] = tz ?? '';
  if (u.subscribeToEmails !== undefined) p[SUBSCRIBED_FIELD] = u.subscribeToEmails ? '1' : '0';
  if (u.deviceTokens !== undefined) p[DEVICE_TOKENS_FIELD] = u.deviceTokens === null ? '' : JSON.stringify(u.deviceTokens);
  if (u.attributes) for (const k in u.attributes) p[attributeField(k)] = u.attributes[k]!;
  return p;
}

/** HGETALL as a flat [field, value, …] list → field map. */
export function toMap(flat: string[], from = 0): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = from; i + 1 < flat.length; i += 2) m.set(flat[i]!, flat[i + 1]!);
  return m;
}

export function userJson(id: string, h: Map<string, string>): User {
  const dt = h.get(DEVICE_TOKENS_FIELD);
  return {
    id,
    email: h.get(EMAIL_FIELD) ?? null,
    name: h.get(NAME_FIELD) ?? null,
    tz: h.get(ZONE_FIELD) || null,
    deviceTokens: dt ? (JSON.parse(dt) as string[]) : null,
    subscribeToEmails: h.get(SUBSCRIBED_FIELD) !== '0',
    attributes: attributesIn(h),
    control: h.get(CONTROL_FIELD) === '1',
    created: new Date(Number(h.get(CREATED_FIELD))).toISOString(),
    updated: new Date(Number(h.get(UPDATED_FIELD) ?? h.get(CREATED_FIELD))).toISOString(),
  };
}
