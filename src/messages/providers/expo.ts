import type { ExpoChannelSettings, RenderedMessage } from '../../wire/admin';
import { combine, joinUrl, networkOutcome, SendOutcome, TokenOutcome, transientStatus } from './outcome';

const HOST = 'https://exp.host';
const TIMEOUT_MS = 20_000;

interface Ticket {
  status: 'ok' | 'error';
  id?: string;
  message?: string;
  details?: { error?: string };
}

/**
 * One request to Expo's push service with a message per device; it answers
 * a ticket for each, in order. `DeviceNotRegistered` means the token is dead;
 * `MessageRateExceeded`, 429 and 5xx are transient.
 */
export async function sendExpo(s: ExpoChannelSettings, deviceTokens: string[], m: RenderedMessage['push']): Promise<SendOutcome> {
  const all = (o: Omit<TokenOutcome, 'token'>) => combine(deviceTokens.map((token) => ({ token, ...o })));
  try {
    const res = await fetch(joinUrl(s.endpoint ?? HOST, '/--/api/v2/push/send'), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json',
        ...(s.accessToken ? { Authorization: `Bearer ${s.accessToken}` } : {}),
      },
      body: JSON.stringify(deviceTokens.map((to) => ({ to, title: m.title, body: m.body, sound: 'default' }))),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = (await res.text()).slice(0, 100_000);
    if (!res.ok) return all({ status: transientStatus(res.status) ? 'retrying' : 'failed', response: `${res.status} ${text.slice(0, 300)}`.trim() });
    const tickets = (JSON.parse(text) as { data?: Ticket[] }).data ?? [];
    return combine(deviceTokens.map((token, i): TokenOutcome => {
      const t = tickets[i];
      if (!t) return { token, status: 'retrying', response: 'no ticket' };
      if (t.status === 'ok') return { token, status: 'sent', response: `ok ${t.id ?? ''}`.trim() };
      const code = t.details?.error ?? t.message ?? 'error';
      if (code === 'DeviceNotRegistered') return { token, status: 'failed', response: code, dead: true };
      return { token, status: code === 'MessageRateExceeded' ? 'retrying' : 'failed', response: code };
    }));
  } catch (err) {
    return all(networkOutcome(err));
  }
}
