import http2 from 'node:http2';
import type { ApnsChannelSettings, RenderedMessage } from '../../wire/admin';
import { combine, joinUrl, networkOutcome, SendOutcome, TokenOutcome, transientStatus } from './outcome';
import { signJwt } from './jwt';

const HOSTS = { production: 'https://api.push.apple.com', sandbox: 'https://api.sandbox.push.apple.com' };
const TIMEOUT_MS = 20_000;
/** Apple refuses provider tokens older than an hour, and too frequent new ones: one is kept 40 minutes. */
const TOKEN_TTL_MS = 40 * 60_000;

/**
 * Extra TLS options for the HTTP/2 connection. Empty in production (Node's
 * usual checks, NODE_EXTRA_CA_CERTS included); tests put their own CA here.
 */
export const apnsTls: { ca?: string } = {};

const tokens = new Map<string, { jwt: string; at: number }>();

function providerToken(s: ApnsChannelSettings, now: number): string {
  const key = `${s.teamId}\0${s.keyId}\0${s.signingKey}`;
  const hit = tokens.get(key);
  if (hit && now - hit.at < TOKEN_TTL_MS && now >= hit.at) return hit.jwt;
  const jwt = signJwt('ES256', s.signingKey, { kid: s.keyId }, { iss: s.teamId, iat: Math.floor(now / 1000) });
  tokens.set(key, { jwt, at: now });
  return jwt;
}

/**
 * An alert to each device over one HTTP/2 connection (Apple's provider API:
 * `POST /3/device/{token}` with a bearer provider token). 410 Unregistered
 * and 400 BadDeviceToken mean the token is dead; 429 and 5xx are transient.
 */
export async function sendApns(s: ApnsChannelSettings, deviceTokens: string[], m: RenderedMessage['push'], now: number): Promise<SendOutcome> {
  const base = s.endpoint ?? HOSTS[s.environment];
  const url = new URL(base);
  const jwt = providerToken(s, now);
  const body = JSON.stringify({ aps: { alert: { title: m.title, body: m.body }, sound: 'default' } });
  let session: http2.ClientHttp2Session;
  try {
    session = http2.connect(url.origin, { ...apnsTls });
  } catch (err) {
    return combine(deviceTokens.map((token) => ({ token, ...networkOutcome(err) })));
  }
  // An error before any stream (refused, TLS) fails every request; each stream reports it.
  session.on('error', () => undefined);
  try {
    const outcomes = await Promise.all(deviceTokens.map((token) => one(session, joinUrl(url.pathname === '/' ? '' : url.pathname, `/3/device/${token}`), token, jwt, s.bundleId, body)));
    return combine(outcomes);
  } finally {
    session.close();
  }
}

function one(session: http2.ClientHttp2Session, path: string, token: string, jwt: string, topic: string, body: string): Promise<TokenOutcome> {
  return new Promise((resolve) => {
    let req: http2.ClientHttp2Stream;
    try {
      req = session.request({
        ':method': 'POST', ':path': path, authorization: `bearer ${jwt}`, 'apns-topic': topic, 'apns-push-type': 'alert', 'apns-priority': '10',
        'content-type': 'application/json',
      });
    } catch (err) {
      resolve({ token, ...networkOutcome(err) });
      return;
    }
    req.setTimeout(TIMEOUT_MS, () => req.close(http2.constants.NGHTTP2_CANCEL));
    let status = 0;
    let text = '';
    req.on('response', (h) => {
      status = Number(h[':status']);
    });
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      if (text.length < 2000) text += c;
    });
    req.on('end', () => {
      let reason = '';
      try {
        reason = (JSON.parse(text) as { reason?: string }).reason ?? '';
      } catch {
        /* no JSON body (a 200) */
      }
      const response = `${status}${reason ? ` ${reason}` : ''}`;
      if (status === 200) resolve({ token, status: 'sent', response });
      else if (status === 410 || reason === 'BadDeviceToken' || reason === 'Unregistered') resolve({ token, status: 'failed', response, dead: true });
      else resolve({ token, status: transientStatus(status) ? 'retrying' : 'failed', response });
    });
    req.on('error', (err) => resolve({ token, ...networkOutcome(err) }));
    req.end(body);
  });
}
