import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/** The repository's root (tests run from dist/test). */
const ROOT = path.join(__dirname, '../../..');
const SPECS = path.join(ROOT, 'test/fixtures/trophy-openapi');

type Json = Record<string, any>;

/** One operation of Trophy's specs, as Laurel serves it. */
export interface TrophyOperation {
  /** e.g. `GET /admin/v1/metrics/{id}` */
  name: string;
  operationId: string;
  method: string;
  re: RegExp;
  /** Documented statuses, each with its JSON body validator when it has one. */
  responses: Map<number, ValidateFunction | null>;
}

/** A response the suite received. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** Where a response departs from Trophy's spec. */
export interface Deviation {
  operation: string;
  status: number;
  problem: string;
}

/**
 * Trophy's two OpenAPI 3.1 documents, each operation's responses compiled
 * with Ajv (references resolved against the document's components).
 */
export function loadTrophySpecs(): TrophyOperation[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  addFormats(ajv);
  // OpenAPI's numeric formats describe precision, not a string shape.
  for (const f of ['double', 'float', 'int32', 'int64']) ajv.addFormat(f, true);
  const ops: TrophyOperation[] = [];
  for (const [file, prefix] of [['application.json', '/v1'], ['admin.json', '/admin/v1']] as const) {
    const doc = JSON.parse(readFileSync(path.join(SPECS, file), 'utf8')) as Json;
    const id = `trophy-${file}`;
    ajv.addSchema({ $id: id, components: doc.components }, id);
    for (const [p, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const full = prefix + p;
        const re = new RegExp(`^${full.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        const responses = new Map<number, ValidateFunction | null>();
        for (const [status, r] of Object.entries((op as Json).responses as Json)) {
          const schema = (r as Json).content?.['application/json']?.schema;
          responses.set(Number(status), schema ? ajv.compile(rebase(schema, id) as object) : null);
        }
        ops.push({ name: `${method.toUpperCase()} ${full}`, operationId: (op as Json).operationId, method: method.toUpperCase(), re, responses });
      }
    }
  }
  return ops;
}

/** `#/components/...` references made absolute against the document's id. */
function rebase(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebase(s, id));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? id + v : rebase(v, id);
  return out;
}

/**
 * The operation an exchange belongs to (a literal segment wins over a
 * parameter: `/streaks/pauses` is not `/streaks/{x}`), or null for Laurel's own routes.
 */
export function operationOf(ops: TrophyOperation[], method: string, urlPath: string): TrophyOperation | null {
  const p = urlPath.split('?')[0]!;
  const matches = ops.filter((o) => o.method === method && o.re.test(p));
  const params = (o: TrophyOperation) => o.name.split('{').length;
  matches.sort((a, b) => params(a) - params(b));
  return matches[0] ?? null;
}

/** What is wrong with one exchange by the spec (null: it conforms, or the route is not Trophy's). */
export function deviationOf(ops: TrophyOperation[], x: Exchange): Deviation | null {
  const op = operationOf(ops, x.method, x.path);
  if (!op) return null;
  if (!op.responses.has(x.status)) {
    return { operation: op.name, status: x.status, problem: `status ${x.status} is not documented (${[...op.responses.keys()].join(', ')})` };
  }
  const validate = op.responses.get(x.status);
  if (validate && !validate(x.body)) {
    const e = validate.errors![0]!;
    return { operation: op.name, status: x.status, problem: `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}` };
  }
  return null;
}

/** A row of the table in docs/conformance.md: which operation, status and (optionally) error text it excuses. */
export interface Departure {
  operation: RegExp;
  status: number;
  error: RegExp | null;
}

/**
 * The table of deliberate departures in docs/conformance.md: rows
 * `| METHOD /path | status | error | why |` under "## Deliberate departures",
 * the operation as Trophy's spec names it (`*` stands for any method or any
 * text), the error either `—` (any) or a regular expression in backquotes.
 */
export function documentedDepartures(): Departure[] {
  const doc = readFileSync(path.join(ROOT, 'docs/conformance.md'), 'utf8');
  const start = doc.indexOf('## Deliberate departures');
  if (start < 0) return [];
  const end = doc.indexOf('\n## ', start);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const out: Departure[] = [];
  for (const m of section.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE|\*) [^`]+)` \| (\d{3}) \| (?:`([^`]+)`|—) \|/gm)) {
    const re = m[1]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    out.push({ operation: new RegExp(`^${re}$`), status: Number(m[2]), error: m[3] ? new RegExp(m[3].replace(/\\\|/g, '|')) : null }); // `\|` is a table's escaped pipe
  }
  return out;
}

let specs: TrophyOperation[] | null = null;
let departures: Departure[] | null = null;

/** Whether a deviation is one the table in docs/conformance.md excuses. */
export function excused(table: Departure[], d: Deviation, x: Exchange): boolean {
  const error = (x.body as { error?: unknown } | null)?.error;
  return table.some((p) => p.operation.test(d.operation) && p.status === d.status && (!p.error || (typeof error === 'string' && p.error.test(error))));
}

/**
 * Checks every response a test server gives against Trophy's specs (see
 * harness.ts): deviations not in docs/conformance.md's table are collected, and the
 * test fails at teardown naming them. `LAUREL_CONTRACT=off` turns it off;
 * `LAUREL_CONTRACT_REPORT=<file>` appends them to a file instead of failing.
 */
export class ContractWatch {
  readonly deviations: string[] = [];

  check(x: Exchange): void {
    specs ??= loadTrophySpecs();
    departures ??= documentedDepartures();
    const d = deviationOf(specs, x);
    if (d && !excused(departures, d, x)) {
      this.deviations.push(`${x.method} ${x.path} → ${x.status}: ${d.problem}`);
    }
  }

  /** At teardown: report or fail. */
  settle(): void {
    if (!this.deviations.length) return;
    const report = process.env.LAUREL_CONTRACT_REPORT;
    if (report) appendFileSync(report, this.deviations.map((d) => `${d}\n`).join(''));
    else throw new Error(`Responses that depart from Trophy's OpenAPI documents (not in the table of docs/conformance.md):\n${this.deviations.join('\n')}`);
  }
}

export const contractWatch = (): ContractWatch | null => (process.env.LAUREL_CONTRACT === 'off' ? null : new ContractWatch());
