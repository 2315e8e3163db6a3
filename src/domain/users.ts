/**
 * A user lives in one Redis hash. Profile fields have short names; metric
 * totals are `m<slot>`. This module is the only place that knows the names.
 */
export interface UserFields {
  email?: string;
  name?: string;
  tz?: string | null;
  deviceTokens?: string[] | null;
  subscribeToEmails?: boolean;
  attributes?: Record<string, string>;
}

import type { User } from '../api/wire/app';
import { CONTROL_FIELD } from './retention';

export const totalField = (metricSlot: number) => `m${metricSlot}`;

/** The hash fields userJson reads, besides attributes (`a:<key>`). */
export const PROFILE_FIELDS = ['e', 'n', 'tz', 'dt', 'se', 'c', 'u', CONTROL_FIELD];
export const ATTRIBUTE_PREFIX = 'a:';

/** The hash fields a profile update sets (tz already canonical; '' clears). */
export function userPatch(u: UserFields, tz: string | null | undefined): Record<string, string> {
  const p: Record<string, string> = {};
  if (u.email !== undefined) p.e = u.email;
  if (u.name !== undefined) p.n = u.name;
  if (tz !== undefined) p.tz = tz ?? '';
  if (u.subscribeToEmails !== undefined) p.se = u.subscribeToEmails ? '1' : '0';
  if (u.deviceTokens !== undefined) p.dt = u.deviceTokens === null ? '' : JSON.stringify(u.deviceTokens);
  if (u.attributes) for (const k in u.attributes) p[`a:${k}`] = u.attributes[k]!;
  return p;
}

/** HGETALL as a flat [field, value, …] list → field map. */
export function toMap(flat: string[], from = 0): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = from; i + 1 < flat.length; i += 2) m.set(flat[i]!, flat[i + 1]!);
  return m;
}

export function userJson(id: string, h: Map<string, string>): User {
  const attributes: Record<string, string> = {};
  for (const [f, v] of h) if (f.startsWith('a:')) attributes[f.slice(2)] = v;
  const dt = h.get('dt');
  return {
    id,
    email: h.get('e') ?? null,
    name: h.get('n') ?? null,
    tz: h.get('tz') || null,
    deviceTokens: dt ? (JSON.parse(dt) as string[]) : null,
    subscribeToEmails: h.get('se') !== '0',
    attributes,
    control: h.get(CONTROL_FIELD) === '1',
    created: new Date(Number(h.get('c'))).toISOString(),
    updated: new Date(Number(h.get('u') ?? h.get('c'))).toISOString(),
  };
}
