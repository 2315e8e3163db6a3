/**
 * What Laurel answers on the wire to requests that are not plain, well-formed
 * HTTP/1.1 (docs/http-limits.md). Raw sockets: an HTTP client would not send
 * most of these. Every case gets an answer, or (bytes that are not HTTP/1 at
 * all) an immediate close.
 *
 * No assertion here is on speed. GUARD_MS only fails a test that would
 * otherwise hang: no case may wait for a timeout (the shortest, keep-alive's,
 * is 5 s, and every exchange here asks for the connection to be closed).
 */
import t from 'tap';
import net from 'node:net';
import { startServer } from './helpers/harness';

const GUARD_MS = 5000;
const CRLF = '\r\n';

interface Conn {
  sock: net.Socket;
  /** Everything received so far (latin1). */
  received(): string;
  isClosed(): boolean;
  /** Resolves with everything received once the server closed the connection. */
  closed: Promise<string>;
}

function connect(port: number): Conn {
  const sock = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let isClosed = false;
  sock.on('data', (d) => chunks.push(d));
  // A reset instead of a FIN still ends in 'close', which is what is asserted.
  sock.on('error', () => {});
  const received = () => Buffer.concat(chunks).toString('latin1');
  const closed = new Promise<string>((resolve, reject) => {
    const guard = setTimeout(() => {
      sock.destroy();
      reject(new Error(`connection still open after ${GUARD_MS} ms; received ${JSON.stringify(received().slice(0, 200))}`));
    }, GUARD_MS);
    sock.on('close', () => {
      clearTimeout(guard);
      isClosed = true;
      resolve(received());
    });
  });
  return { sock, received, isClosed: () => isClosed, closed };
}

/** Send bytes on a new connection; resolves with what came back once the server closed it. */
async function exchange(port: number, data: string | Buffer): Promise<string> {
  const c = connect(port);
  c.sock.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  return c.closed;
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes after this response (a pipelined one). */
  rest: string;
}

/** One HTTP/1.1 response from the front of `text` (Content-Length framed, or none for HEAD). */
function parse(text: string, head = false): Parsed {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no response head in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  const len = head ? 0 : Number(headers['content-length'] ?? 0);
  const body = text.slice(end + 4, end + 4 + len);
  return { status: Number(statusLine!.split(' ')[1]), headers, body, rest: text.slice(end + 4 + len) };
}

const request = (line: string, headers: string[] = [], body = '') =>
  `${line}${CRLF}${['Host: laurel', ...headers].map((h) => h + CRLF).join('')}${CRLF}${body}`;

/** Send each request on its own connection and send the whole body, however the server answers. */
async function each<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
}

t.test('HTTP limits', async (t) => {
  const s = await startServer(t);
  const port = Number(new URL(s.url).port);
  const key = `X-API-KEY: ${s.adminKey}`;
  const close = 'Connection: close';

  t.test('methods with no route at a path: 405 with Allow and a JSON error, or 404', async (t) => {
    for (const method of ['TRACE', 'OPTIONS', 'CONNECT', 'DELETE']) {
      const r = parse(await exchange(port, request(`${method} /v1/users/u1 HTTP/1.1`, [close])));
      t.equal(r.status, 405, method);
      t.match(r.headers.allow, /GET/, method);
      t.match(JSON.parse(r.body), { error: new RegExp(`Method ${method} is not allowed`) }, method);
    }
    const r = parse(await exchange(port, request('OPTIONS /nowhere HTTP/1.1', [close])));
    t.equal(r.status, 404);
    t.type(JSON.parse(r.body).error, 'string');
  });

  t.test('HEAD is answered without a body, so a request behind it is read right', async (t) => {
    const text = await exchange(port, request('HEAD /healthz HTTP/1.1') + request('GET /healthz HTTP/1.1', [close]));
    const head = parse(text, true);
    t.equal(head.status, 405);
    t.equal(head.headers.allow, 'GET');
    t.equal(head.headers['content-length'], undefined);
    const get = parse(head.rest);
    t.equal(get.status, 200);
    t.same(JSON.parse(get.body), { status: 'ok' });
    t.equal(get.rest, '');
  });

  t.test('any other method, and methods not in upper case: 405 with Allow', async (t) => {
    for (const method of ['PROPFIND', 'PURGE', 'MKCOL', 'M-SEARCH', 'FOO', 'get', 'Post']) {
      const r = parse(await exchange(port, request(`${method} /healthz HTTP/1.1`, [close])));
      t.equal(r.status, 405, method);
      t.equal(r.headers.allow, 'GET', method);
      t.match(JSON.parse(r.body), { error: `Method ${method} is not allowed on /healthz` }, method);
    }
    t.equal(parse(await exchange(port, request('get /nowhere HTTP/1.1'))).status, 404);
  });

  t.test('the WebSocket endpoint: another method is 405 like on any route', async (t) => {
    const r = parse(await exchange(port, request('POST /v1/live HTTP/1.1', [key, close, 'Content-Length: 2'], '{}')));
    t.equal(r.status, 405);
    t.equal(r.headers.allow, 'GET');
  });

  t.test('requests the parser refuses: 400 with a JSON error, then closed', async (t) => {
    const cases: Record<string, string> = {
      'no Host': `GET /healthz HTTP/1.1${CRLF}Accept: */*${CRLF}${CRLF}`,
      'no header line at all': `GET /healthz HTTP/1.1${CRLF}${CRLF}`,
      'Content-Length not a number': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: abc'], '[]'),
      'Content-Length as a list': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: 2, 3'], '[]x'),
      'Content-Length and Transfer-Encoding': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: 2', 'Transfer-Encoding: chunked'], `2${CRLF}[]${CRLF}0${CRLF}${CRLF}`),
      'NUL in a header value': request('GET /healthz HTTP/1.1', ['X-A: a\0b']),
      'NUL in X-API-KEY': request('GET /v1/users/u1 HTTP/1.1', ['X-API-KEY: a\0b']),
      'NUL in Tenant-ID': request('GET /v1/users/u1 HTTP/1.1', [key, 'Tenant-ID: a\0b']),
      'CR alone in a header value': request('GET /healthz HTTP/1.1', ['X-A: a\rb']),
      'bare LF line endings': `GET /healthz HTTP/1.1\nHost: laurel\n\n`,
      'obsolete line folding': request('GET /healthz HTTP/1.1', ['X-A: a', ' b']),
      'space before the colon': request('GET /healthz HTTP/1.1', ['X-A : b']),
      'CONNECT authority-form': request('CONNECT laurel:443 HTTP/1.1'),
    };
    for (const [name, data] of Object.entries(cases)) {
      const r = parse(await exchange(port, data));
      t.equal(r.status, 400, name);
      t.equal(r.headers.connection, 'close', name);
      t.type(JSON.parse(r.body).error, 'string', name);
    }
  });

  t.test('versions other than HTTP/1.1 and 1.0: 505', async (t) => {
    for (const version of ['HTTP/2.0', 'HTTP/1.2', 'HTTP/3.0']) {
      const r = parse(await exchange(port, request(`GET /healthz ${version}`)));
      t.equal(r.status, 505, version);
      t.match(JSON.parse(r.body), { error: /HTTP\/1\.1/ }, version);
    }
    // No version at all (HTTP/0.9's request line), once the head ends: refused the same way.
    t.equal(parse(await exchange(port, `GET /healthz${CRLF}${CRLF}`)).status, 505);
  });

  t.test('HTTP/1.0: answered and closed; with keep-alive, the connection serves several', async (t) => {
    const plain = parse(await exchange(port, `GET /healthz HTTP/1.0${CRLF}${CRLF}`));
    t.equal(plain.status, 200);
    t.same(JSON.parse(plain.body), { status: 'ok' });
    t.equal(plain.headers['content-length'], String(plain.body.length), 'framed by its length, never chunked');
    const text = await exchange(port, `GET /healthz HTTP/1.0${CRLF}Connection: keep-alive${CRLF}${CRLF}GET /healthz HTTP/1.0${CRLF}${CRLF}`);
    const first = parse(text);
    t.equal(first.status, 200);
    t.match(first.headers.connection, /keep-alive/i);
    const second = parse(first.rest);
    t.equal(second.status, 200);
    t.equal(second.rest, '');
  });

  t.test('keep-alive is advertised with its timeout', async (t) => {
    const c = connect(port);
    c.sock.write(request('GET /healthz HTTP/1.1'));
    await new Promise<void>((resolve) => c.sock.on('data', () => c.received().includes('{"status":"ok"}') && resolve()));
    const r = parse(c.received());
    t.equal(r.status, 200);
    t.match(r.headers['keep-alive'], /^timeout=\d+$/);
    c.sock.end();
    await c.closed;
  });

  t.test('absolute-form targets are served as their path; OPTIONS * lists the methods', async (t) => {
    const abs = parse(await exchange(port, request('GET http://laurel/healthz HTTP/1.1', [close])));
    t.equal(abs.status, 200);
    t.same(JSON.parse(abs.body), { status: 'ok' });
    const star = parse(await exchange(port, request('OPTIONS * HTTP/1.1', [close])));
    t.equal(star.status, 204);
    t.match(star.headers.allow, /GET.*POST/);
    t.equal(parse(await exchange(port, request('GET * HTTP/1.1', [close]))).status, 400);
  });

  t.test('TLS and HTTP/2 bytes on the plain port: closed at once, no answer', async (t) => {
    const cases: Record<string, Buffer> = {
      'TLS ClientHello': Buffer.from('16030100a5010000a10303' + '00'.repeat(32) + '000020', 'hex'),
      'HTTP/2 preface': Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from('000000040000000000', 'hex')]),
    };
    for (const [name, data] of Object.entries(cases)) t.equal(await exchange(port, data), '', name);
  });

  t.test('an upgrade to something else (h2c) is answered as HTTP/1.1, then closed', async (t) => {
    const r = parse(await exchange(port, request('GET /healthz HTTP/1.1', ['Connection: Upgrade, HTTP2-Settings', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA'])));
    t.equal(r.status, 200);
    t.same(JSON.parse(r.body), { status: 'ok' });
  });

  t.test('two differing Content-Length headers: 400 and the connection closed', async (t) => {
    const body = JSON.stringify([{ name: 'Words', key: 'words' }]);
    const cases: Record<string, string> = {
      'route with a body': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Type: application/json', `Content-Length: ${body.length}`, `Content-Length: ${body.length + 5}`], body),
      'route without a body': request('GET /healthz HTTP/1.1', ['Content-Length: 0', 'Content-Length: 4'], ''),
      'unmatched path': request('POST /nowhere HTTP/1.1', ['Content-Length: 2', 'content-length: 3'], '{}'),
    };
    for (const [name, data] of Object.entries(cases)) {
      const r = parse(await exchange(port, data));
      t.equal(r.status, 400, name);
      t.equal(r.headers.connection, 'close', name);
      t.same(JSON.parse(r.body), { error: 'Conflicting Content-Length headers' }, name);
      t.equal(r.rest, '', name);
    }
    // Nothing was created.
    const list = await s.call('GET', '/admin/v1/metrics');
    t.same(list.body, []);
  });

  t.test('a request pipelined behind conflicting lengths is never run', async (t) => {
    // Framed by the first length, the rest would be a second request: what a proxy framing by the other would smuggle.
    const evil = JSON.stringify([{ name: 'Evil', key: 'smuggled' }]);
    const smuggled = request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Type: application/json', `Content-Length: ${evil.length}`], evil);
    const r = parse(await exchange(port, request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: 2', `Content-Length: ${2 + smuggled.length}`], '[]') + smuggled));
    t.equal(r.status, 400);
    t.equal(r.rest, '', 'one answer, then the connection is closed');
    const list = await s.call('GET', '/admin/v1/metrics');
    t.same(list.body, []);
  });

  t.test('a repeated Content-Length, even the same value, is refused (RFC 9110 §8.6 allows either)', async (t) => {
    const body = JSON.stringify([{ name: 'Words', key: 'words' }]);
    const r = parse(await exchange(port, request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Type: application/json', `Content-Length: ${body.length}`, `Content-Length: ${body.length}`, close], body)));
    t.equal(r.status, 400);
    t.same(JSON.parse(r.body), { error: 'Repeated Content-Length header' });
  });

  t.test('100 header lines are read; 101, or a head over 16 KiB, is 431', async (t) => {
    const extra = (n: number) => Array.from({ length: n }, (_, i) => `X-Extra-${i}: ${i}`);
    // Host + Connection + 98 = 100.
    t.equal(parse(await exchange(port, request('GET /healthz HTTP/1.1', [close, ...extra(98)]))).status, 200);
    const many = parse(await exchange(port, request('GET /healthz HTTP/1.1', [close, ...extra(99)])));
    t.equal(many.status, 431);
    t.match(JSON.parse(many.body), { error: /header lines/ });
    const big = parse(await exchange(port, request('GET /healthz HTTP/1.1', [close, `X-Big: ${'a'.repeat(17 * 1024)}`])));
    t.equal(big.status, 431);
    t.type(JSON.parse(big.body).error, 'string');
  });

  t.test('a request head that arrives in pieces is read', async (t) => {
    const data = request('GET /healthz HTTP/1.1', [close, `X-Big: ${'a'.repeat(8000)}`]);
    const c = connect(port);
    await new Promise((r) => c.sock.once('connect', r));
    c.sock.write(data.slice(0, 1000));
    await new Promise((r) => setTimeout(r, 100));
    c.sock.write(data.slice(1000));
    t.equal(parse(await c.closed).status, 200);
  });

  t.test('pipelining: answered in order, including behind an answer that waits on Redis and Postgres', async (t) => {
    const text = await exchange(port, request('GET /healthz HTTP/1.1') + request('GET /healthz HTTP/1.1', [close]));
    const a = parse(text);
    t.equal(a.status, 200);
    t.equal(parse(a.rest).status, 200);
    const ready = parse(await exchange(port, request('GET /readyz HTTP/1.1') + request('GET /healthz HTTP/1.1', [close])));
    t.match(JSON.parse(ready.body), { redis: true });
    t.same(JSON.parse(parse(ready.rest).body), { status: 'ok' });
  });

  // The 413 must reach a client still sending its body: the server answers, half-closes, and reads on until the client is done.
  t.test('a body over the limit gets its 413 every time, declared or chunked, while the client is still sending', async (t) => {
    const limit = 1 << 20; // the batch route's
    const declared = await each(30, () => {
      const body = Buffer.alloc(limit + 1, 'a');
      return exchange(port, Buffer.concat([Buffer.from(request('POST /admin/v1/metrics/events HTTP/1.1', [key, 'Content-Type: application/json', `Content-Length: ${body.length}`])), body]));
    });
    t.same(declared.map((text) => parse(text).status), Array(30).fill(413), 'declared one byte over: 30 of 30');
    t.match(parse(declared[0]!).headers, { connection: 'close' });
    const chunk = 'a'.repeat(64 * 1024);
    const chunked = Buffer.from(request('POST /admin/v1/metrics/events HTTP/1.1', [key, 'Content-Type: application/json', 'Transfer-Encoding: chunked']) + `${chunk.length.toString(16)}${CRLF}${chunk}${CRLF}`.repeat(32) + `0${CRLF}${CRLF}`, 'latin1');
    const streamed = await each(40, () => exchange(port, chunked));
    t.same(streamed.map((text) => parse(text).status), Array(40).fill(413), 'chunked 2 MiB: 40 of 40');
  });
});
