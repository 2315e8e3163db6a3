import nodemailer from 'nodemailer';
import type { EmailChannelSettings, RenderedMessage } from '../../wire/admin';
import type { SendOutcome } from './outcome';

const TIMEOUT_MS = 20_000;

/**
 * One email over SMTP with nodemailer (STARTTLS when the relay offers it,
 * with Node's usual certificate checks). A 4xx answer or a connection
 * failure is transient; a 5xx is permanent (RFC 5321).
 */
export async function sendEmail(s: EmailChannelSettings, to: string, m: RenderedMessage['email'], unsubscribeUrl: string | null): Promise<SendOutcome> {
  const transport = nodemailer.createTransport({
    url: s.smtpUrl, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS,
  });
  try {
    const info = await transport.sendMail({
      from: s.from.name ? { name: s.from.name, address: s.from.email } : s.from.email,
      to,
      replyTo: s.replyTo,
      subject: m.subject,
      html: m.html,
      text: m.text,
      // RFC 8058 one-click unsubscribe.
      headers: unsubscribeUrl ? { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {},
    });
    return { status: 'sent', response: String(info.response ?? 'accepted'), deadTokens: [] };
  } catch (err) {
    const e = err as Error & { responseCode?: number; response?: string; code?: string };
    const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
    return { status: permanent ? 'failed' : 'retrying', response: String(e.response ?? e.code ?? e.message), deadTokens: [] };
  } finally {
    transport.close();
  }
}
