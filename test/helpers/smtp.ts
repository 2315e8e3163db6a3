import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  user: string;
  from: string;
  to: string[];
  /** Headers unfolded, by lower-case name. */
  headers: Map<string, string>;
  raw: string;
}

/**
 * A real SMTP server (smtp-server, from the Nodemailer project) for tests:
 * it takes one login, keeps what it accepts, and answers each DATA with the
 * next scripted failure when there is one (`fail(451)`).
 */
export async function smtpPeer(t: { teardown(fn: () => unknown): void }, login = { user: 'mailer', pass: 's3cret-pass' }) {
  const received: ReceivedMail[] = [];
  const failures: number[] = [];
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === login.user && auth.password === login.pass) cb(null, { user: auth.username });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const code = failures.shift();
        if (code) {
          cb(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
        const headers = new Map<string, string>();
        for (const line of head.split('\r\n')) {
          const i = line.indexOf(':');
          headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
        }
        received.push({
          user: String(session.user), from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address), headers, raw,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    received,
    url: `smtp://${login.user}:${login.pass}@127.0.0.1:${port}`,
    port,
    /** The next DATA is answered with this code. */
    fail: (code: number) => failures.push(code),
  };
}
