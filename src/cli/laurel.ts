#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import type { ConfigPlan, ConfigProblem } from '../wire/admin';

/**
 * `laurel config pull|plan|push`: a tenant's configuration as a file, for git
 * and CI (docs/environments.md). Reads LAUREL_URL, LAUREL_API_KEY and
 * LAUREL_TENANT. Exit codes: 0 done (plan: nothing to change), 2 plan has
 * changes, 1 any failure.
 */

const USAGE = `Usage:
  laurel config pull [file]                       write the tenant's configuration (stdout without a file)
  laurel config plan <file|-> [--prune]           show what pushing would change; exit 0 (nothing) or 2 (changes)
  laurel config push <file|-> [--prune] [--if-match <version>]   apply it as one new config version

Environment: LAUREL_URL (e.g. http://localhost:3000), LAUREL_API_KEY (an admin key), LAUREL_TENANT (a tenant's
customer id; the default tenant when unset). "-" reads the document from standard input.`;

class Failure extends Error {}

interface Options {
  file?: string;
  prune: boolean;
  ifMatch?: string;
}

function parseArgs(args: string[]): { command: string; options: Options } {
  const [group, command, ...rest] = args;
  if (group !== 'config' || !command || !['pull', 'plan', 'push'].includes(command)) throw new Failure(USAGE);
  const options: Options = { prune: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--prune' && command !== 'pull') options.prune = true;
    else if (a === '--if-match' && command === 'push' && rest[i + 1] !== undefined) options.ifMatch = rest[++i];
    else if ((a === '-' || !a.startsWith('-')) && options.file === undefined) options.file = a;
    else throw new Failure(`Unexpected argument: ${a}\n\n${USAGE}`);
  }
  if (command !== 'pull' && options.file === undefined) throw new Failure(`laurel config ${command} needs a file (or - for standard input)\n\n${USAGE}`);
  return { command, options };
}

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Failure(`${name} is not set`);
  return v;
}

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<unknown> {
  const url = env('LAUREL_URL').replace(/\/+$/, '') + path;
  const h: Record<string, string> = { 'X-API-KEY': env('LAUREL_API_KEY'), ...headers };
  if (process.env.LAUREL_TENANT) h['Tenant-ID'] = process.env.LAUREL_TENANT;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers: h, body });
  } catch (err) {
    throw new Failure(`Cannot reach ${url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any JSON the server answered, printed as it is
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Failure(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  }
  if (res.status !== 200) {
    const problems = ((parsed.problems ?? []) as ConfigProblem[]).map((p) => `  ${p.path}: ${p.message}`);
    throw new Failure([`${res.status}: ${parsed.error ?? text}`, ...problems].join('\n'));
  }
  return parsed;
}

function readDocument(file: string): string {
  try {
    const text = readFileSync(file === '-' ? 0 : file, 'utf8');
    JSON.parse(text);
    return text;
  } catch (err) {
    throw new Failure(`Cannot read a JSON document from ${file === '-' ? 'standard input' : file}: ${(err as Error).message}`);
  }
}

const show = (v: unknown) => JSON.stringify(v);

/** A plan as a readable diff: `+` created, `~` updated (with each field), `-` deleted. */
export function describePlan(plan: ConfigPlan): string {
  const lines: string[] = [];
  for (const c of plan.creations) lines.push(`+ ${c.kind} ${c.key}`);
  for (const u of plan.updates) {
    lines.push(`~ ${u.kind} ${u.key}`);
    for (const f of u.changes) {
      if (f.before === undefined) lines.push(`    + ${f.field}: ${show(f.after)}`);
      else if (f.after === undefined) lines.push(`    - ${f.field}: ${show(f.before)}`);
      else lines.push(`    ${f.field}: ${show(f.before)} -> ${show(f.after)}`);
    }
  }
  for (const d of plan.deletions) lines.push(`- ${d.kind} ${d.key}`);
  const n = plan.creations.length + plan.updates.length + plan.deletions.length;
  lines.push(
    n === 0
      ? 'No changes.'
      : `${n} change${n === 1 ? '' : 's'}: ${plan.creations.length} to create, ${plan.updates.length} to update, ${plan.deletions.length} to delete.`,
  );
  return lines.join('\n') + '\n';
}

async function main(args: string[]): Promise<number> {
  const { command, options } = parseArgs(args);
  const query = options.prune ? '?prune=true' : '';
  if (command === 'pull') {
    const text = JSON.stringify(await call('GET', '/admin/v1/config'), null, 2) + '\n';
    if (options.file && options.file !== '-') writeFileSync(options.file, text);
    else process.stdout.write(text);
    return 0;
  }
  const doc = readDocument(options.file!);
  if (command === 'plan') {
    const plan = (await call('POST', `/admin/v1/config/plan${query}`, doc)) as ConfigPlan;
    process.stdout.write(describePlan(plan));
    return plan.creations.length + plan.updates.length + plan.deletions.length ? 2 : 0;
  }
  const headers: Record<string, string> = options.ifMatch ? { 'If-Match': options.ifMatch } : {};
  const plan = (await call('PUT', `/admin/v1/config${query}`, doc, headers)) as ConfigPlan;
  process.stdout.write(describePlan(plan).replace(/\n$/, ` Config version ${plan.version}.\n`));
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err) => {
      process.stderr.write(`${err instanceof Failure ? err.message : (err as Error).stack}\n`);
      process.exitCode = 1;
    },
  );
}
