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
  if (under(from, 'scheduler') && under(to, 'api')) return 'scheduler/ imports no api/';
  if (under(from, 'services') && (under(to, 'api') || under(to, 'http'))) return 'services/ imports no api/ or http/: they speak the domain (errors: domain/errors)';
  if (under(from, 'services') && to === 'errors') return 'services/ throw domain errors (domain/errors), not HTTP ones (errors)';
  if (under(from, 'engine') && (under(to, 'api') || under(to, 'services') || under(to, 'store'))) return 'engine/ imports no api/, services/ or store/';
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

t.test('the rules see imports (a sanity check of the parser)', async (t) => {
  t.ok(imports(path.join(SRC, 'services/record-event.ts')).includes('engine'), 'record-event imports engine');
  t.equal(broken('domain/users', 'api/app/users'), 'domain/ imports no api/, services/, store/, http/, redis/ or engine/');
  t.equal(broken('scheduler/retention', 'services/streak-calls'), null, 'the scheduler shares services with handlers');
  t.equal(broken('api/app/points', 'api/app/users'), 'a handler imports no other handler (share through domain/ or a service module)');
  t.equal(broken('api/app/users', 'services/user-input'), null);
  t.equal(broken('services/record-event', 'http/server'), 'services/ imports no api/ or http/: they speak the domain (errors: domain/errors)');
  t.equal(broken('api/app/users', 'wire/app'), null);
});
