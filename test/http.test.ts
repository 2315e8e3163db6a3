import t from 'tap';
import net from 'node:net';
import { startServer } from './helpers/harness';

t.test('health, routing and request errors', async (t) => {
  const s = await startServer(t);
  await s.metrics(['words']);

  t.test('healthz and readyz need no key', async (t) => {
    const h = await s.call('GET', '/healthz', { key: null });
    t.equal(h.status, 200);
    t.same(h.body, { status: 'ok' });
    const r = await s.call('GET', '/readyz', { key: null });
    t.equal(r.status, 200);
    t.match(r.body, { status: 'ok', redis: true, postgres: true, flusherLag: { entries: Number, seconds: Number } });
  });

  t.test('unknown route is 404, wrong method is 405 with Allow', async (t) => {
    const r = await s.call('GET', '/v1/nothing-here');
    t.equal(r.status, 404);
    t.type(r.body.error, 'string');
    const m = await s.call('DELETE', '/v1/users/u1');
    t.equal(m.status, 405);
    t.match(m.headers.get('allow'), /GET/);
    t.match(m.headers.get('allow'), /PATCH/);
  });

  t.test('malformed JSON is 400 where Trophy documents 400, else 422; a bad field is 422 naming it', async (t) => {
    const r = await s.call('POST', '/v1/metrics/words/event', { raw: '{"user":', headers: { 'Content-Type': 'application/json' } });
    t.equal(r.status, 400);
    t.match(r.body.error, /Malformed JSON/);
    const admin = await s.call('POST', '/admin/v1/metrics', { raw: '[{', headers: { 'Content-Type': 'application/json' } });
    t.equal(admin.status, 422, 'Trophy documents no 400 for creating metrics');
    t.match(admin.body.error, /Malformed JSON/);
    const f = await s.event('words', { user: { id: 'u1' }, value: 'ten' });
    t.equal(f.status, 422);
    t.match(f.body.error, /body\.value/);
    const missing = await s.event('words', { value: 1 });
    t.equal(missing.status, 422);
    t.match(missing.body.error, /body\.user/);
  });

  t.test('a body that is not JSON is 415', async (t) => {
    const r = await s.call('POST', '/v1/metrics/words/event', { raw: 'user=u1&value=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    t.equal(r.status, 415);
    t.type(r.body.error, 'string');
  });

  t.test('a body over 64 KiB is 413, declared or streamed', async (t) => {
    const big = JSON.stringify({ user: { id: 'u1', name: 'x'.repeat(70 * 1024) }, value: 1 });
    const r = await s.call('POST', '/v1/metrics/words/event', { raw: big, headers: { 'Content-Type': 'application/json' } });
    t.equal(r.status, 413);
    t.match(r.body.error, /exceeds/);

    // Chunked upload without a Content-Length: refused once the limit is crossed.
    const status = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1');
      let got = '';
      sock.on('data', (d) => {
        got += d.toString();
        if (got.includes('\r\n\r\n')) {
          resolve(got.split('\r\n')[0]!);
          sock.destroy();
        }
      });
      sock.on('error', reject);
      sock.write(`POST /v1/metrics/words/event HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${s.adminKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const chunk = 'a'.repeat(16 * 1024);
      for (let i = 0; i < 6; i++) sock.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    t.match(status, /^HTTP\/1\.1 413/);
  });

  t.test('errors never carry a stack trace', async (t) => {
    const r = await s.call('POST', '/admin/v1/metrics', { body: { not: 'an array' } });
    t.equal(r.status, 422);
    t.same(Object.keys(r.body), ['error']);
    t.notMatch(r.body.error, /at .*\.js/);
  });
});
