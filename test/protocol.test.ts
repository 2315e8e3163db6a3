/**
 * What Laurel answers on the wire to requests that are not plain, well-formed
 * HTTP/1.1 (docs/http-limits.md). Raw sockets: an HTTP client would not send
 * most of these. uWebSockets.js 20.30 parses HTTP in C++ and never hands many
 * of them to Laurel; those cases assert what uWS does, as documented.
 *
 * No assertion here is on speed. GUARD_MS only fails a test that would
 * otherwise hang; uWS's own idle close comes after 10 s at the earliest, so a
 * close within the guard is never that one.
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

t.test('HTTP limits', async (t) => {
  const s = await startServer(t);
  const port = Number(new URL(s.url).port);
  const key = `X-API-KEY: ${s.adminKey}`;

  t.test('methods uWS routes reach Laurel: 405 with Allow and a JSON error, or 404', async (t) => {
    for (const method of ['TRACE', 'OPTIONS', 'CONNECT', 'DELETE']) {
      const r = parse(await exchange(port, request(`${method} /v1/users/u1 HTTP/1.1`, ['Connection: close'])));
      t.equal(r.status, 405, method);
      t.match(r.headers.allow, /GET/, method);
      t.match(JSON.parse(r.body), { error: new RegExp(`Method ${method} is not allowed`) }, method);
    }
    const r = parse(await exchange(port, request('OPTIONS /nowhere HTTP/1.1', ['Connection: close'])));
    t.equal(r.status, 404);
    t.type(JSON.parse(r.body).error, 'string');
  });

  t.test('HEAD is answered without a body, so a request behind it is read right', async (t) => {
    const text = await exchange(port, request('HEAD /healthz HTTP/1.1') + request('GET /healthz HTTP/1.1', ['Connection: close']));
    const head = parse(text, true);
    t.equal(head.status, 405);
    t.equal(head.headers.allow, 'GET');
    t.equal(head.headers['content-length'], undefined);
    const get = parse(head.rest);
    t.equal(get.status, 200);
    t.same(JSON.parse(get.body), { status: 'ok' });
    t.equal(get.rest, '');
  });

  t.test('methods uWS does not know, and lowercase ones: closed at once, no answer (uWS)', async (t) => {
    for (const method of ['PROPFIND', 'PURGE', 'MKCOL', 'get', 'Post']) {
      t.equal(await exchange(port, request(`${method} /healthz HTTP/1.1`)), '', method);
    }
  });

  t.test('other requests uWS refuses at once without an answer', async (t) => {
    const cases: Record<string, string> = {
      'no Host': `GET /healthz HTTP/1.1${CRLF}Accept: */*${CRLF}${CRLF}`,
      'Content-Length not a number': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: abc'], '[]'),
      'Content-Length as a list': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: 2, 3'], '[]x'),
      'Content-Length and Transfer-Encoding': request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: 2', 'Transfer-Encoding: chunked'], `2${CRLF}[]${CRLF}0${CRLF}${CRLF}`),
    };
    for (const [name, data] of Object.entries(cases)) t.equal(await exchange(port, data), '', name);
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
    const text = await exchange(port, request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Length: 2', `Content-Length: ${2 + smuggled.length}`], '[]') + smuggled);
    t.equal(text, '', 'the connection is closed with no answer to either');
    const list = await s.call('GET', '/admin/v1/metrics');
    t.same(list.body, []);
  });

  t.test('identical repeated Content-Length headers are accepted', async (t) => {
    const body = JSON.stringify([{ name: 'Words', key: 'words' }]);
    const r = parse(await exchange(port, request('POST /admin/v1/metrics HTTP/1.1', [key, 'Content-Type: application/json', `Content-Length: ${body.length}`, `Content-Length: ${body.length}`, 'Connection: close'], body)));
    t.equal(r.status, 201);
  });

  t.test('48 header lines are read; from 49 on, uWS holds the request like the cases below', async (t) => {
    const extra = (n: number) => Array.from({ length: n }, (_, i) => `X-Extra-${i}: ${i}`);
    // Host + Connection + 46 = 48.
    const ok = parse(await exchange(port, request('GET /healthz HTTP/1.1', ['Connection: close', ...extra(46)])));
    t.equal(ok.status, 200);
    const c = connect(port);
    c.sock.write(request('GET /healthz HTTP/1.1', ['Connection: close', ...extra(47)]));
    await new Promise((r) => setTimeout(r, 300));
    t.equal(c.isClosed(), false);
    t.equal(c.received(), '');
    c.sock.end();
    t.equal(await c.closed, '');
  });

  t.test('requests uWS neither answers nor closes: held, no answer; closed at once on the client FIN', async (t) => {
    const cases: Record<string, string | Buffer> = {
      'no header line at all': `GET /healthz HTTP/1.1${CRLF}${CRLF}`,
      'HTTP/1.0': `GET /healthz HTTP/1.0${CRLF}Host: laurel${CRLF}${CRLF}`,
      'HTTP/2.0 in the request line': `GET /healthz HTTP/2.0${CRLF}Host: laurel${CRLF}${CRLF}`,
      'NUL in a header value': request('GET /healthz HTTP/1.1', ['X-A: a\0b']),
      'CR alone in a header value': request('GET /healthz HTTP/1.1', ['X-A: a\rb']),
      'bare LF line endings': `GET /healthz HTTP/1.1\nHost: laurel\n\n`,
      'obsolete line folding': request('GET /healthz HTTP/1.1', ['X-A: a', ' b']),
      'space before the colon': request('GET /healthz HTTP/1.1', ['X-A : b']),
      'absolute-form target': request('GET http://laurel/healthz HTTP/1.1'),
      'OPTIONS *': request('OPTIONS * HTTP/1.1'),
      'CONNECT authority-form': request('CONNECT laurel:443 HTTP/1.1'),
      'TLS ClientHello': Buffer.from('16030100a5010000a10303' + '00'.repeat(32) + '000020', 'hex'),
      'HTTP/2 preface': Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from('000000040000000000', 'hex')]),
    };
    const conns = Object.entries(cases).map(([name, data]) => {
      const c = connect(port);
      c.sock.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
      return { name, c };
    });
    // Held: nothing comes back and the connection stays open (uWS's idle close comes after 10-14 s).
    await new Promise((r) => setTimeout(r, 300));
    for (const { name, c } of conns) {
      t.equal(c.isClosed(), false, `${name}: still open`);
      t.equal(c.received(), '', `${name}: no answer`);
      c.sock.end();
    }
    for (const { name, c } of conns) t.equal(await c.closed, '', `${name}: closed on FIN, no answer`);
  });

  t.test('a held request is closed at once when more than 4 KiB waits unparsed', async (t) => {
    const c = connect(port);
    c.sock.write(`GET /healthz HTTP/1.0${CRLF}Host: laurel${CRLF}${CRLF}`);
    await new Promise((r) => setTimeout(r, 50));
    c.sock.write('x'.repeat(4200));
    t.equal(await c.closed, '');
  });

  t.test('a request head over 4 KiB is read when it arrives in one piece, closed when split', async (t) => {
    const data = request('GET /healthz HTTP/1.1', ['Connection: close', `X-Big: ${'a'.repeat(8000)}`]);
    t.equal(parse(await exchange(port, data)).status, 200);
    // The first part is in the kernel once write() returns (after 'connect'); the
    // server (this process) reads it in the next poll phase, well before the timer.
    const c = connect(port);
    await new Promise((r) => c.sock.once('connect', r));
    c.sock.write(data.slice(0, 1000));
    await new Promise((r) => setTimeout(r, 100));
    c.sock.write(data.slice(1000));
    t.equal(await c.closed, '');
  });

  t.test('pipelining: answered in order while each answer is immediate; closed when one is pending', async (t) => {
    const text = await exchange(port, request('GET /healthz HTTP/1.1') + request('GET /healthz HTTP/1.1', ['Connection: close']));
    const a = parse(text);
    t.equal(a.status, 200);
    t.equal(parse(a.rest).status, 200);
    // /readyz waits on Redis and Postgres: uWS closes the connection when the next request arrives meanwhile.
    t.equal(await exchange(port, request('GET /readyz HTTP/1.1') + request('GET /healthz HTTP/1.1', ['Connection: close'])), '');
  });
});
