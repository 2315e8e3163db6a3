import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer } from './helpers/harness';
import { openApiMethod, openApiPath } from '../src/api/openapi/document';
import { MAX_BATCH } from '../src/api/admin/batch';
import { CONSOLE_PATH } from '../src/api/console';

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { operationId: string; security: unknown[]; parameters?: { $ref?: string; name?: string }[] }>>;
  components: { schemas: Record<string, any>; securitySchemes: Record<string, any>; parameters: Record<string, any> };
};

t.test('GET /openapi.json describes every route the server serves', async (t) => {
  const s = await startServer(t);
  const res = await s.call<Doc>('GET', '/openapi.json', { key: null });
  t.equal(res.status, 200, 'served without a key');
  t.match(res.headers.get('content-type'), /application\/json/);
  const doc = res.body;
  t.equal(doc.openapi, '3.1.0');
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
  t.equal(doc.info.version, pkg.version);

  // The point of the document: a route added without a description fails here.
  // The console's routes serve HTML and static files to a browser, not API
  // operations: describing them would only add noise for API clients.
  const apiRoutes = s.app.routes.filter((r) => r.pattern !== CONSOLE_PATH && !r.pattern.startsWith(`${CONSOLE_PATH}/`));
  t.ok(apiRoutes.length < s.app.routes.length, 'the console is served');
  const missing = apiRoutes
    .filter((r) => !doc.paths[openApiPath(r.pattern)]?.[openApiMethod(r.method)])
    .map((r) => `${openApiMethod(r.method).toUpperCase()} ${r.pattern}`);
  t.same(missing, [], 'every served route is in the document');
  const served = new Set(apiRoutes.map((r) => `${openApiMethod(r.method)} ${openApiPath(r.pattern)}`));
  const stale = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)).filter((k) => !served.has(k));
  t.same(stale, [], 'every described operation is served');

  const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique');

  // Every reference points at something in the document.
  const dangling: string[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref' && typeof v === 'string') {
        const [, section, name] = v.match(/^#\/components\/(\w+)\/(.+)$/) ?? [];
        if (!section || !(doc.components as Record<string, Record<string, unknown>>)[section]?.[name!]) dangling.push(v);
      } else walk(v);
    }
  };
  walk(doc);
  t.same(dangling, [], 'no dangling $ref');

  for (const scheme of ['AdminKey', 'ApplicationKey']) t.match(doc.components.securitySchemes[scheme], { type: 'apiKey', in: 'header', name: 'X-API-KEY' });
  t.equal(doc.components.parameters.TenantId.name, 'Tenant-ID');
  const event = doc.paths['/v1/metrics/{key}/event']!.post!;
  t.ok(event.parameters!.some((p) => p.$ref === '#/components/parameters/TenantId'), 'events take Tenant-ID');
  t.ok(event.parameters!.some((p) => p.$ref === '#/components/parameters/IdempotencyKey'), 'events take Idempotency-Key');
  t.notOk(doc.paths['/admin/v1/tenants']!.get!.parameters!.some((p) => p.$ref), 'tenant routes are account-wide: no Tenant-ID');
});

t.test('the document says what the server enforces', async (t) => {
  const s = await startServer(t);
  const doc = (await s.call<Doc>('GET', '/openapi.json', { key: null })).body;

  // Keyed operations refuse a request without a key, and an application key
  // (for the user `x` of the paths) wherever only the admin key is listed.
  const appKey = (await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'x' }] })).body.created[0].key;
  const placeholder = (p: string) => p.replace(/\{(\w+)\}/g, (_, name) => (p.startsWith('/admin/') && name !== 'key' ? '00000000-0000-4000-8000-000000000000' : 'x'));
  const wrong: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const call = (key: string | null) => s.call(method.toUpperCase(), placeholder(p), { key, body: method === 'get' || method === 'delete' ? undefined : {} });
      const schemes = op.security.flatMap((x) => Object.keys(x as object));
      const anonymous = (await call(null)).status;
      if ((schemes.length > 0) !== (anonymous === 401)) wrong.push(`${method} ${p} without a key: ${anonymous}`);
      if (!schemes.length) continue;
      const scoped = (await call(appKey)).status;
      if (schemes.includes('ApplicationKey') === (scoped === 401 || scoped === 403)) wrong.push(`${method} ${p} with an application key: ${scoped}`);
    }
  }
  t.same(wrong, [], 'security in the document matches the server');

  // The schemas are the validators' types: their limits are the server's limits.
  const value = doc.components.schemas.EventBody.properties.value;
  t.equal(value.maximum, 1e12);
  await s.metrics(['m']);
  const over = await s.event('m', { user: { id: 'u' }, value: value.maximum * 10 });
  t.equal(over.status, 422);
  t.match(over.body.error, /value/);
  t.equal((await s.event('m', { user: { id: 'u' }, value: value.maximum })).status, 201);
  t.same(doc.components.schemas.UserWithId.required, ['id']);
  t.equal(doc.components.schemas.BatchCreateMetric.maxItems, MAX_BATCH, 'batch limit as enforced');
});

// The document as it was before routes were declared once (issue 37): the
// generated one must stay byte for byte the same. Stored pretty-printed for
// readable diffs; the served bytes are its compact form. A deliberate change
// to the document updates this file in the same commit:
// `npm run -s build && LAUREL_WRITE_OPENAPI=1 npx tap dist/test/openapi.test.js`.
t.test('the document is byte for byte the recorded one', async (t) => {
  const s = await startServer(t);
  const res = await fetch(`${s.url}/openapi.json`);
  const served = await res.text();
  const fixture = path.resolve(__dirname, '../../test/fixtures/openapi.json');
  if (process.env.LAUREL_WRITE_OPENAPI) writeFileSync(fixture, `${JSON.stringify(JSON.parse(served), null, 2)}\n`);
  const recorded = readFileSync(fixture, 'utf8');
  t.ok(served === JSON.stringify(JSON.parse(recorded)), 'served /openapi.json equals test/fixtures/openapi.json');
  if (served !== JSON.stringify(JSON.parse(recorded))) {
    const a = JSON.stringify(JSON.parse(served), null, 2).split('\n');
    const b = recorded.split('\n');
    const i = a.findIndex((line, k) => line !== b[k]);
    t.comment(`first difference at line ${i + 1} of the fixture:\n- ${b[i]}\n+ ${a[i]}`);
  }
});
