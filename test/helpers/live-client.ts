import WebSocket from 'ws';

export interface Message {
  [k: string]: any;
}

/** A test's WebSocket client: every message kept in order, and waits for the ones asked for. */
export interface LiveSocket {
  ws: WebSocket;
  messages: Message[];
  /** The close code and reason, once closed. */
  closed: Promise<{ code: number; reason: string }>;
  send(msg: unknown): void;
  /** The first message (from `from` on) that matches, waiting up to `ms` (a generous guard, not a speed). */
  next(pred: (m: Message) => boolean, ms?: number, from?: number): Promise<Message>;
  /** Messages of one subscription. */
  of(subscription: string): Message[];
  close(): void;
}

export function liveUrl(base: string, token?: string): string {
  return `${base.replace(/^http/, 'ws')}/v1/live${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

/** Open a live connection; rejects with the HTTP status and error body when the upgrade is refused. */
export function openLive(url: string, headers: Record<string, string> = {}): Promise<LiveSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages: Message[] = [];
    const waiters = new Set<() => void>();
    ws.on('message', (data) => {
      messages.push(JSON.parse(String(data)));
      for (const w of [...waiters]) w();
    });
    const closed = new Promise<{ code: number; reason: string }>((res) => ws.on('close', (code, reason) => res({ code, reason: String(reason) })));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`refused: ${res.statusCode} ${body}`), { status: res.statusCode, body: JSON.parse(body || '{}') })));
    });
    ws.on('error', (err) => reject(err));
    ws.on('open', () =>
      resolve({
        ws,
        messages,
        closed,
        send: (msg) => ws.send(JSON.stringify(msg)),
        next(pred, ms = 10_000, from = 0) {
          return new Promise((res, rej) => {
            const check = () => {
              const found = messages.slice(from).find(pred);
              if (!found) return false;
              waiters.delete(check);
              clearTimeout(timer);
              res(found);
              return true;
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rej(new Error(`no matching message within ${ms} ms; got ${JSON.stringify(messages.slice(-5))}`));
            }, ms);
            waiters.add(check);
            check();
          });
        },
        of: (subscription) => messages.filter((m) => m.subscription === subscription),
        close: () => ws.close(),
      }),
    );
  });
}

/** Whether a list of sequence numbers runs 1, 2, 3… with nothing missing. */
export const contiguous = (seqs: number[]) => seqs.every((s, i) => s === i + 1);
