import t from 'tap';
import fc from 'fast-check';
import { startServer, TestServer } from './helpers/harness';

// Hostile values for every operation `/openapi.json` describes: bodies built
// from each operation's own schema with hostile leaves, hostile path and query
// parameters. Whatever comes in: no 5xx, the `{"error"}` shape on refusals,
// nothing changed by a refused request, and the durable record keeps up.
//
// CI runs a fixed seed and a bounded count; HOSTILE_SEED (a number, or
// `random`) and HOSTILE_RUNS (cases per operation) explore further.

const SEED = process.env.HOSTILE_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.HOSTILE_SEED ?? 15);
const RUNS = Number(process.env.HOSTILE_RUNS ?? 10);

type Schema = Record<string, any>;
interface Param { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema }
interface Op { method: string; path: string; params: Param[]; body: Schema | null }

/** Values the fixture below creates, so generated requests also reach past the lookups. */
interface Known { strings: string[]; uuids: string[] }

const NASTY = [
  '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '__proto__', 'constructor', 'toString', '', ' ', '%00', '%', '../..',
  '🙂', 'é', '9999-12-31', '0000-01-01', '1969-12-31', '2026-02-30', '1e400', '-1', 'null', 'true', '<script>alert(1)</script>',
  'x'.repeat(256), 'y'.repeat(8000), 'a:b,c', ':', ',', '00000000-0000-0000-0000-000000000000',
];
const NUMBERS = [0, -0, 1, -1, 0.1, 3e9, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e12, 1e12 + 1, -1e12 - 1, 1e15, 1e16, 1e300, -1e300, 5e-324];

/** What Postgres cannot hold: the strings most worth getting past validation. */
const UNSTORABLE = fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', 'z'.repeat(8000));
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

function hostileString(k: Known): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
    { weight: 3, arbitrary: fc.constantFrom(...k.strings, ...k.uuids) },
    { weight: 1, arbitrary: fc.string({ unit: codeUnit, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  );
}
const hostileNumber = fc.oneof(fc.constantFrom(...NUMBERS), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());

/**
 * A value shaped by `schema`: valid leaves (so it gets past validation and
 * reaches the stores), or hostile ones where `hostile` is set.
 */
function fromSchema(doc: Schema, schema: Schema | undefined, k: Known, hostile: boolean, depth = 0): fc.Arbitrary<unknown> {
  const any = fc.oneof(hostileString(k), hostileNumber, fc.boolean(), fc.constant(null));
  if (!schema || depth > 6) return hostile ? any : fc.constantFrom(...k.strings);
  const next = (s: Schema | undefined) => fromSchema(doc, s, k, hostile, depth + 1);
  if (schema.$ref) return next(resolve(doc, schema.$ref));
  const alts = schema.oneOf ?? schema.anyOf;
  if (alts) return fc.oneof(...alts.map(next));
  if (schema.const !== undefined) return hostile ? fc.oneof(fc.constant(schema.const), hostileString(k)) : fc.constant(schema.const);
  if (schema.enum) return hostile ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: hostileString(k) }) : fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  const options = type.map((ty: string | undefined): fc.Arbitrary<unknown> => {
    switch (ty) {
      case 'string': {
        const valid = schema.format === 'uuid' ? fc.constantFrom(...k.uuids)
          : schema.format === 'date' ? fc.constantFrom('2026-03-10', '2026-01-01', '2027-12-31')
          : schema.format === 'date-time' ? fc.constant('2026-03-10T12:00:00.000Z')
          : schema.format === 'email' ? fc.constant('a@example.com')
          : schema.format === 'uri' || /url/i.test(schema.description ?? '') ? fc.constant('http://127.0.0.1:9/hook')
          : fc.constantFrom(...k.strings);
        return hostile ? fc.oneof(valid, hostileString(k)) : valid;
      }
      case 'number': case 'integer': {
        if (hostile) return hostileNumber;
        const min = Math.max(schema.minimum ?? (schema.exclusiveMinimum ?? -1) + 1, 0);
        return fc.integer({ min, max: Math.min(schema.maximum ?? min + 10, min + 10) });
      }
      case 'boolean': return hostile ? fc.oneof(fc.boolean(), any) : fc.boolean();
      case 'null': return fc.constant(null);
      case 'array': {
        const items = fc.array(next(schema.items), { minLength: Math.max(1, schema.minItems ?? 0), maxLength: 2 });
        return hostile ? fc.oneof({ weight: 4, arbitrary: items }, { weight: 1, arbitrary: fc.constant([]) }) : items;
      }
      case 'object': {
        const props: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, s] of Object.entries<Schema>(schema.properties ?? {})) props[name] = next(s);
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          if (hostile) props.__proto__ = next(schema.additionalProperties);
          props[k.strings[0]!] = next(schema.additionalProperties);
        }
        const required = (schema.required ?? []).filter((r: string) => r in props);
        return fc.record(props, { requiredKeys: required }).map((o) => ({ ...o }));
      }
      default: return hostile ? any : fc.constantFrom(...k.strings);
    }
  });
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

/** Where the leaves of a JSON value are (paths of keys and indexes). */
function leaves(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== 'object') return [at];
  const keys = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  return keys.length ? keys.flatMap((key) => leaves((v as any)[key], [...at, key])) : [at];
}

/** A valid value with one leaf made hostile: the likeliest way past validation with something the store cannot hold. */
function oneHostileLeaf(doc: Schema, schema: Schema, k: Known): fc.Arbitrary<unknown> {
  return fc.tuple(fromSchema(doc, schema, k, false), fc.nat(), fc.oneof(UNSTORABLE, hostileString(k), hostileNumber)).map(([value, n, bad]) => {
    const paths = leaves(value);
    const path = paths[n % paths.length]!;
    if (!path.length) return bad;
    const copy = JSON.parse(JSON.stringify(value));
    path.slice(0, -1).reduce((o, p) => o[p], copy)[path[path.length - 1]!] = bad;
    return copy;
  });
}

function resolve(doc: Schema, ref: string): Schema {
  return ref.replace(/^#\//, '').split('/').reduce((o: Schema, p) => o[decodeURIComponent(p)], doc);
}

/** Path segments as a hostile client would send them: percent-encoded, or as raw (CESU) bytes when not UTF-16 well-formed. */
function pathSegment(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return [...v].map((c) => {
      try { return encodeURIComponent(c); } catch { const u = c.charCodeAt(0); return `%${(0xe0 | (u >> 12)).toString(16)}%${(0x80 | ((u >> 6) & 63)).toString(16)}%${(0x80 | (u & 63)).toString(16)}`; }
    }).join('');
  }
}

function operations(doc: Schema): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(methods)) {
      const params = ((op.parameters ?? []) as Schema[]).map((p) => (p.$ref ? resolve(doc, p.$ref) : p) as Param).filter((p) => p.in !== 'header');
      ops.push({ method: method.toUpperCase(), path, params, body: op.requestBody?.content?.['application/json']?.schema ?? null });
    }
  }
  // Deletes last, so the fixture they may remove is there for everything else first.
  return ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

function requestOf(doc: Schema, op: Op, k: Known) {
  const path = fc.tuple(...op.params.filter((p) => p.in === 'path').map((p) => fc.tuple(fc.constant(p.name), fc.oneof(hostileString(k), fc.constantFrom(...k.strings, ...k.uuids)))));
  const query = fc.array(fc.tuple(fc.constantFrom(...(op.params.filter((p) => p.in === 'query').map((p) => p.name).concat('limit'))), fc.oneof(hostileString(k), hostileNumber.map(String))), { maxLength: 4 });
  const body = op.body
    ? fc.oneof(
      { weight: 4, arbitrary: oneHostileLeaf(doc, op.body, k) },
      { weight: 1, arbitrary: fromSchema(doc, op.body, k, false) },
      { weight: 1, arbitrary: fromSchema(doc, op.body, k, true) },
      { weight: 1, arbitrary: fc.jsonValue() },
    )
    : fc.constant(undefined);
  return fc.record({ path, query, body }).map(({ path: segs, query: q, body: b }) => {
    let url = op.path;
    for (const [name, v] of segs) url = url.replace(`{${name}}`, pathSegment(v));
    const qs = new URLSearchParams(q).toString();
    return { method: op.method, url: qs ? `${url}?${qs}` : url, body: b };
  });
}

async function fixture(s: TestServer): Promise<Known> {
  const { m } = await s.metrics(['m']);
  await s.attributes([{ key: 'plan', type: 'user' }, { key: 'src', type: 'event' }]);
  const attrs = (await s.call('GET', '/admin/v1/attributes')).body as { id: string }[];
  const xp = (await s.call('POST', '/admin/v1/points', { body: [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }], levels: [{ key: 'l1', name: 'L1', points: 10 }] }] })).body.created[0];
  const board = (await s.call('POST', '/admin/v1/leaderboards', { body: [{ key: 'top', name: 'Top', rankBy: 'metric', metricId: m!.id, start: '2026-03-01', status: 'active' }] })).body.created[0];
  const ach = (await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'ach', name: 'Ach', trigger: 'api', status: 'active' }] })).body.created[0];
  await s.call('PUT', '/admin/v1/streak', { body: { frequency: 'daily', metrics: [{ metricId: m!.id, threshold: 1 }] } });
  await s.event('m', { user: { id: 'u1', name: 'U1', attributes: { plan: 'pro' } }, value: 3 });
  return {
    strings: ['u1', 'm', 'xp', 'top', 'ach', 'plan', 'src', 'pro', 'daily', 'l1'],
    uuids: [m!.id, xp.id, xp.triggers[0].id, xp.levels[0].id, board.id, ach.id, ...attrs.map((a) => a.id)],
  };
}

t.test('hostile input on every described operation', async (t) => {
  const s = await startServer(t);
  const known = await fixture(s);
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body as Schema;
  const ops = operations(doc);
  t.ok(ops.length > 50, `${ops.length} operations`);
  t.comment(`seed ${SEED}, ${RUNS} cases per operation`);
  const failures: string[] = [];

  for (const op of ops) {
    await fc.assert(
      fc.asyncProperty(requestOf(doc, op, known), async (req) => {
        const before = await s.fingerprint();
        const r = await s.call(req.method, req.url, req.body === undefined ? {} : { body: req.body });
        const what = `${req.method} ${req.url.slice(0, 120)} ${JSON.stringify(req.body)?.slice(0, 200)} -> ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
        if (r.status >= 500) throw new Error(`5xx: ${what}`);
        if (r.status >= 400) {
          if (typeof r.body?.error !== 'string') throw new Error(`no {"error"} body: ${what}`);
          if ((await s.fingerprint()) !== before) throw new Error(`refused but changed state: ${what}`);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    ).catch((err: Error) => {
      // fast-check's report: the shrunk counterexample, then the property's own error.
      const lines = err.message.split('\n');
      const reason = lines.find((l) => /^Error: /.test(l.trim())) ?? lines.find((l) => /5xx|no \{"error"\}|refused but/.test(l));
      failures.push(`${op.method} ${op.path}: ${(reason ?? err.message).trim().slice(0, 600)}`);
    });
  }
  t.same(failures, [], 'every operation held');

  await s.drain();
  const ready = await s.call('GET', '/readyz', { key: null });
  t.equal(ready.status, 200);
  t.equal(ready.body.flusherLag.entries, 0, 'everything accepted reached Postgres');
  t.equal(ready.body.deadLetters, 0, 'and none of it was set aside as a dead letter');
});
