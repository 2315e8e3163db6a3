import type { FcmChannelSettings, RenderedMessage } from '../../wire/admin';
import { combine, joinUrl, networkOutcome, SendOutcome, TokenOutcome, transientStatus } from './outcome';
import { signJwt } from './jwt';

const HOST = 'https://fcm.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const TIMEOUT_MS = 20_000;

const accessTokens = new Map<string, { token: string; until: number }>();

/** An OAuth access token for the service account (a signed assertion to its own `token_uri`), kept until shortly before it expires. */
async function accessToken(s: FcmChannelSettings, now: number): Promise<string> {
  const sa = s.serviceAccount;
  const key = `${sa.client_email}\0${sa.token_uri}\0${sa.private_key}`;
  const hit = accessTokens.get(key);
  if (hit && now < hit.until) return hit.token;
  const iat = Math.floor(now / 1000);
  const assertion = signJwt('RS256', sa.private_key, {}, { iss: sa.client_email, scope: SCOPE, aud: sa.token_uri, iat, exp: iat + 3600 });
  const res = await fetch(sa.token_uri, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new TokenError(res.status, text);
  const body = JSON.parse(text) as { access_token: string; expires_in?: number };
  accessTokens.set(key, { token: body.access_token, until: now + Math.max(60, (body.expires_in ?? 3600) - 300) * 1000 });
  return body.access_token;
}

class TokenError extends Error {
  constructor(readonly status: number, body: string) {
    super(`token endpoint: ${status} ${body.slice(0, 300)}`);
  }
}

/**
 * A notification to each device through FCM's HTTP v1 API. `UNREGISTERED`
 * means the token is dead; 429 and 5xx are transient, as is a token
 * endpoint that is down (a refused assertion is permanent).
 */
export async function sendFcm(s: FcmChannelSettings, deviceTokens: string[], m: RenderedMessage['push'], now: number): Promise<SendOutcome> {
  let bearer: string;
  try {
    bearer = await accessToken(s, now);
  } catch (err) {
    const out = err instanceof TokenError
      ? { status: transientStatus(err.status) ? ('retrying' as const) : ('failed' as const), response: err.message }
      : networkOutcome(err);
    return combine(deviceTokens.map((token) => ({ token, ...out })));
  }
  const url = joinUrl(s.endpoint ?? HOST, `/v1/projects/${encodeURIComponent(s.serviceAccount.project_id)}/messages:send`);
  const outcomes = await Promise.all(deviceTokens.map(async (token): Promise<TokenOutcome> => {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
        body: JSON.stringify({ message: { token, notification: { title: m.title, body: m.body } } }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = (await res.text()).slice(0, 2000);
      if (res.ok) return { token, status: 'sent', response: `${res.status} ${text}`.trim() };
      const code = errorCode(text);
      const response = `${res.status}${code ? ` ${code}` : ''}`;
      if (code === 'UNREGISTERED') return { token, status: 'failed', response, dead: true };
      if (res.status === 401) accessTokens.clear();
      return { token, status: transientStatus(res.status) || res.status === 401 ? 'retrying' : 'failed', response };
    } catch (err) {
      return { token, ...networkOutcome(err) };
    }
  }));
  return combine(outcomes);
}

/** FCM's error code (`UNREGISTERED`, …) from the details of an error body, else its status. */
function errorCode(text: string): string | null {
  try {
    const e = (JSON.parse(text) as { error?: { status?: string; details?: { errorCode?: string }[] } }).error;
    return e?.details?.find((d) => d.errorCode)?.errorCode ?? e?.status ?? null;
  } catch {
    return null;
  }
}
