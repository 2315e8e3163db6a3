import { execFileSync } from 'node:child_process';

/**
 * `pg_dump --schema-only` of one schema, with what differs between two equal
 * schemas taken out: the schema's own name (each test makes its own), pg_dump's
 * comment and session lines, and the random `\restrict` token newer pg_dumps add.
 * Objects come in pg_dump's own order (by kind, then name), so no sorting is needed.
 */
export function dumpSchema(url: string, schema: string): string {
  const raw = execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '--schema', schema, '--dbname', url], { encoding: 'utf8' });
  return raw
    .split('\n')
    .filter((line) => !/^(--|SET |SELECT pg_catalog\.set_config|\\(un)?restrict |CREATE SCHEMA )/.test(line))
    .join('\n')
    .replaceAll(schema, 'laurel')
    .replace(/\n{3,}/g, '\n\n')
    .trim() + '\n';
}
