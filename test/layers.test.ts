import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The layers of src/, read from the import lines: a move that crosses one
 * fails here, before it spreads.
 */
const SRC = path.resolve(__dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(f) && !f.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every relative import of a file, as a path relative to src/ (without extension). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)) {
    out.push(path.relative(SRC, path.resolve(path.dirname(file), m[1]!)).split(path.sep).join('/'));
  }
  return out;
}

const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/').replace(/\.tsx?$/, '');
const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
const HANDLER_DIRS = ['api/app', 'api/admin'];
/** A handler file: in api/app or api/admin, exporting its routes (`fooRoutes(ctx: Ctx)`); the others there are shared helpers. */
const handlers = new Set(
  files(SRC)
    .filter((f) => HANDLER_DIRS.some((d) => under(rel(f), d)) && /export function \w+Routes\(ctx: Ctx\)/.test(readFileSync(f, 'utf8')))
    .map(rel),
);

/** [what imports, what is imported] → the rule broken, or null. */
function broken(from: string, to: string): string | null {
  if (to === 'engine/library' && !under(from, 'engine')) return 'only src/engine sends FCALL (engine/library)';
  if (under(from, 'domain') && ['api', 'services', 'store', 'http', 'redis', 'engine'].some((d) => under(to, d))) return 'domain/ imports no api/, services/, store/, http/, redis/ or engine/';
  if (under(from, 'store') && (under(to, 'api') || under(to, 'http'))) return 'store/ imports no api/ or http/';
  if (under(from, 'store') && under(to, 'pipeline')) return 'store/ (Postgres access) imports nothing of the pipeline that feeds it';
  if (under(from, 'pipeline') && (under(to, 'api') || under(to, 'http') || under(to, 'services'))) return 'pipeline/ imports no api/, http/ or services/';
  if (under(from, 'scheduler') && under(to, 'api')) return 'scheduler/ imports no api/';
  if (under(from, 'services') && (under(to, 'api') || under(to, 'http'))) return 'services/ imports no api/ or http/: they speak the domain (errors: domain/errors)';
  if (under(from, 'services') && to === 'errors') return 'services/ throw domain errors (domain/errors), not HTTP ones (errors)';
  if (under(from, 'engine') && (under(to, 'api') || under(to, 'services') || under(to, 'store'))) return 'engine/ imports no api/, services/ or store/';
  if (under(from, 'observability') && !under(to, 'observability')) return 'observability/ (Prometheus, logging) imports nothing else of Laurel: anything may report to it';
  if (under(from, 'wire') && !under(to, 'wire') && to !== 'webhooks/events') return 'wire/ holds the API\'s data shapes only (and the webhook event names)';
  if (handlers.has(from) && handlers.has(to) && to !== from) return 'a handler imports no other handler (share through domain/ or a service module)';
  return null;
}

const all = files(SRC);
const violations: string[] = [];
for (const f of all) {
  const from = rel(f);
  for (const to of imports(f)) {
    const rule = broken(from, to);
    if (rule) violations.push(`${from} → ${to}: ${rule}`);
  }
}

t.test('no import crosses a layer', async (t) => {
  t.same(violations, []);
});

t.test('nothing outside src/engine sends FCALL', async (t) => {
  const offenders = all.filter((f) => !under(rel(f), 'engine') && /['"`]FCALL['"`]|\.fcall\(/.test(readFileSync(f, 'utf8')));
  t.same(offenders.map(rel), []);
});

/**
 * Postgres and Redis are reached through store/ and engine/ (or redis/)
 * modules named after what they hold: a handler calls them and never speaks
 * SQL or Redis commands itself. `req.query` (a property) is not a call.
 */
const SQL = [
  { re: /^\s*import\b[^;]*?from\s+['"]pg['"]/m, what: "imports 'pg'" },
  { re: /\.query\s*[<(]/, what: 'sends SQL (.query)' },
];
const RAW_REDIS = [
  { re: /^\s*import\b[^;]*?from\s+['"]ioredis['"]/m, what: "imports 'ioredis'" },
  { re: /\bredis\s*\.\s*\w+\s*\(/, what: 'sends a Redis command (redis.…())' },
  { re: /\.(pipeline|multi)\s*\(/, what: 'builds a Redis pipeline' },
];

/** What a file under api/ does that belongs in store/ or engine/, one line per finding. */
function storeAccess(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...SQL, ...RAW_REDIS].filter((r) => r.re.test(text)).map((r) => `src/${rel(file)}.ts ${r.what}: move it into a store/ or engine/ module`);
}

t.test('api/ holds no SQL and no raw Redis calls', async (t) => {
  t.same(all.filter((f) => under(rel(f), 'api')).flatMap(storeAccess), []);
});

t.test('the rules see imports (a sanity check of the parser)', async (t) => {
  t.ok(imports(path.join(SRC, 'services/record-event.ts')).includes('engine'), 'record-event imports engine');
  t.equal(broken('domain/users', 'api/app/users'), 'domain/ imports no api/, services/, store/, http/, redis/ or engine/');
  t.equal(broken('scheduler/retention', 'services/streak-calls'), null, 'the scheduler shares services with handlers');
  t.equal(broken('api/app/points', 'api/app/users'), 'a handler imports no other handler (share through domain/ or a service module)');
  t.equal(broken('api/app/users', 'services/user-input'), null);
  t.equal(broken('services/record-event', 'http/server'), 'services/ imports no api/ or http/: they speak the domain (errors: domain/errors)');
  t.equal(broken('api/app/users', 'wire/app'), null);
  t.equal(broken('pipeline/dead-letters', 'observability/metrics'), null, 'anything reports to observability/');
  t.equal(broken('store/tenants', 'pipeline/flusher'), 'store/ (Postgres access) imports nothing of the pipeline that feeds it');
  t.equal(broken('observability/metrics', 'store/tenants'), 'observability/ (Prometheus, logging) imports nothing else of Laurel: anything may report to it');
});

t.test('the store-access rule sees SQL and Redis (a sanity check of its patterns)', async (t) => {
  const finds = (text: string) => [...SQL, ...RAW_REDIS].filter((r) => r.re.test(text)).map((r) => r.what);
  t.same(finds("import type { Pool } from 'pg';"), ["imports 'pg'"]);
  t.same(finds("const { rows } = await ctx.db.query<{ n: number }>('SELECT 1');"), ['sends SQL (.query)']);
  t.same(finds('await c.query(`DELETE FROM x`);'), ['sends SQL (.query)']);
  t.same(finds("import Redis from 'ioredis';"), ["imports 'ioredis'"]);
  t.same(finds('const z = await ctx.redis.hget(key, f);'), ['sends a Redis command (redis.…())']);
  t.same(finds("await ctx.redis.pipeline(ids.map((id) => ['hget', id, 'n'])).exec();"), ['sends a Redis command (redis.…())', 'builds a Redis pipeline']);
  t.same(finds("const limit = intParam(req.query, 'limit', 10, 0, 1000); const n = await userNames(ctx.redis, tk, ids);"), [], 'a query string and a client passed along are not access');
});
