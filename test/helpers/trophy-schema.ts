import { readFileSync } from 'node:fs';

/**
 * Checks a value against a schema of Trophy's OpenAPI document (the reference
 * the API is compatible with): types, required fields, enums, items,
 * properties and additionalProperties, allOf and $ref. Returns the problems
 * found (none: it conforms).
 */
const SPEC_PATH = process.env.TROPHY_OPENAPI ?? '/work/shared/reference/trophy-openapi/application.json';

type Schema = Record<string, any>;
let spec: { components: { schemas: Record<string, Schema> }; webhooks: Record<string, any> } | null = null;

export const trophySpecAvailable = (() => {
  try {
    spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8'));
    return true;
  } catch {
    return false;
  }
})();

export function trophySchema(name: string): Schema {
  return spec!.components.schemas[name]!;
}

/** The body schema of one of Trophy's webhook events. */
export function trophyWebhookSchema(type: string): Schema {
  return spec!.webhooks[type].post.requestBody.content['application/json'].schema;
}

export function conform(value: unknown, schema: Schema, path = '$'): string[] {
  if (schema.$ref) return conform(value, spec!.components.schemas[schema.$ref.split('/').pop()]!, path);
  const errors: string[] = [];
  if (schema.allOf) for (const s of schema.allOf) errors.push(...conform(value, s, path));
  const types: string[] | undefined = schema.type === undefined ? undefined : [schema.type].flat();
  if (types) {
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    const ok = types.some((t) => t === actual || (t === 'integer' && actual === 'number' && Number.isInteger(value)));
    if (!ok) return [...errors, `${path}: expected ${types.join('|')}, got ${actual}`];
  }
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path}: above ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errors.push(...conform(v, schema.items, `${path}[${i}]`)));
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${path}.${r}: required`);
    for (const [k, v] of Object.entries(obj)) {
      if (schema.properties?.[k]) errors.push(...conform(v, schema.properties[k], `${path}.${k}`));
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') errors.push(...conform(v, schema.additionalProperties, `${path}.${k}`));
    }
  }
  return errors;
}
