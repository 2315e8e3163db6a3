// Calls to Laurel from the console. The admin key lives in sessionStorage only
// (gone when the tab closes) and travels as the X-API-KEY header, never in a URL.
const KEY = 'laurel.console.key';
const TENANT = 'laurel.console.tenant';

export const session = {
  key: () => sessionStorage.getItem(KEY),
  tenant: () => sessionStorage.getItem(TENANT) || '',
  signIn(key, tenant) {
    sessionStorage.setItem(KEY, key);
    this.setTenant(tenant);
  },
  setTenant(tenant) {
    if (tenant) sessionStorage.setItem(TENANT, tenant);
    else sessionStorage.removeItem(TENANT);
  },
  signOut() {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(TENANT);
  },
};

/** A refused call: the status and the API's own message (`error`, or the first batch issue). */
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

function queryString(query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** `path` with each value URL-encoded as one segment. */
export const p = (strings, ...values) => strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]) : ''), '');

/**
 * Tenants are account-wide: Tenant-ID is not sent for them.
 * @param {string} method
 * @param {string} path
 * @param {{ query?: Record<string, unknown>, body?: unknown, key?: string, tenant?: string, headers?: Record<string, string> }} [options]
 */
export async function api(method, path, { query, body, key = session.key(), tenant = session.tenant(), headers: extra = {} } = {}) {
  const headers = { ...extra, 'X-API-KEY': key ?? '' };
  if (tenant && !path.startsWith('/admin/v1/tenants')) headers['Tenant-ID'] = tenant;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path + queryString(query), {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit',
  });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  if (!res.ok) throw new ApiError(res.status, typeof data?.error === 'string' ? data.error : `${res.status} ${res.statusText}`, data);
  return data;
}

/** A batch write of one item: the item back, or an ApiError with the API's issue (nothing was saved then). */
export async function writeOne(method, path, item) {
  const out = await api(method, path, { body: [item] });
  const done = (out.created ?? out.updated ?? [])[0];
  if (!done) throw new ApiError(422, out.issues?.[0]?.message ?? 'Not saved', out);
  return done;
}

/** Every item of a list endpoint, 100 at a time (the console's lists are config, so small). */
export async function listAll(path, max = 1000) {
  const all = [];
  for (let skip = 0; skip < max; skip += 100) {
    const page = await api('GET', path, { query: { limit: 100, skip } });
    all.push(...page);
    if (page.length < 100) break;
  }
  return all;
}
