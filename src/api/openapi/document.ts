import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { IJsonSchemaUnit, OpenApi } from 'typia';
import type { Method } from '../../http/server';

/** A typia-generated schema: the type's schema and the named types it refers to. */
export type Unit = IJsonSchemaUnit<'3.1'>;

/** What the description says about one route. */
export interface Operation {
  method: Method;
  /** The route's pattern, exactly as registered (`/v1/users/:id`). */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Which keys it takes: `application` (either kind), `admin` (the admin key only), `none` (service routes). */
  auth: 'application' | 'admin' | 'none';
  /** Whether Tenant-ID selects the tenant (default: when a key is required). */
  tenant?: boolean;
  idempotencyKey?: boolean;
  /** An object type whose properties are the query parameters. */
  query?: Unit;
  body?: Unit;
  /** Success responses by status. */
  responses: Record<number, { description: string; schema?: Unit }>;
  /** A WebSocket endpoint's messages, each way: emitted as the operation's `x-laurel-live`. */
  messages?: { client: Unit; server: Unit; description: string };
}

type Json = Record<string, unknown>;

const METHOD: Record<Method, string> = { get: 'get', post: 'post', put: 'put', patch: 'patch', del: 'delete' };

/** `/v1/users/:id` → `/v1/users/{id}`. */
export const openApiPath = (pattern: string) => pattern.replace(/:(\w+)/g, '{$1}');
export const openApiMethod = (m: Method) => METHOD[m];

/** What a path parameter names, from the segment before it. */
const NOUNS: Record<string, string> = {
  users: 'user', leagues: 'league', cohorts: 'cohort', metrics: 'metric', points: 'points system', achievements: 'achievement', leaderboards: 'leaderboard',
  attributes: 'attribute', triggers: 'points trigger', levels: 'points level', boosts: 'points boost', tenants: 'tenant',
  webhooks: 'webhook endpoint', deliveries: 'webhook delivery', 'dead-letters': 'dead letter', 'admin-api-keys': 'admin key',
};

/** Path parameters that are neither ids nor keys. */
const OWN_NAMES: Record<string, string> = {
  type: 'The notification type (achievement_completed, recap, reactivation or streak_reminder)',
  token: 'The signed token of an unsubscribe link',
};

function pathParameters(pattern: string): Json[] {
  const segments = pattern.split('/');
  return segments.flatMap((seg, i) => {
    if (!seg.startsWith(':')) return [];
    const name = seg.slice(1);
    const noun = NOUNS[segments[i - 1] ?? ''] ?? 'resource';
    const what = name === 'key' ? `The ${noun}'s key` : noun === 'user' ? "The user's ID (yours)" : (OWN_NAMES[name] ?? `The ${noun}'s ID`);
    const uuid = pattern.startsWith('/admin/') && name !== 'key' && noun !== 'user' && !OWN_NAMES[name];
    return [{ name, in: 'path', required: true, description: what, schema: uuid ? { type: 'string', format: 'uuid' } : { type: 'string' } }];
  });
}

/**
 * Named types from every unit in one pool. A name used by two different
 * types would make references ambiguous: refuse it.
 */
class SchemaPool {
  readonly schemas: Record<string, OpenApi.IJsonSchema> = {};

  add(unit: Unit): OpenApi.IJsonSchema {
    for (const [name, schema] of Object.entries(unit.components.schemas ?? {})) {
      const known = this.schemas[name];
      if (known && JSON.stringify(known) !== JSON.stringify(schema)) throw new Error(`Two different types are named ${name}`);
      this.schemas[name] = schema;
    }
    return unit.schema;
  }

  /** The object schema a unit stands for (following its reference). */
  object(unit: Unit): OpenApi.IJsonSchema.IObject {
    this.add(unit);
    const s = unit.schema as OpenApi.IJsonSchema.IReference | OpenApi.IJsonSchema.IObject;
    const target = '$ref' in s ? this.schemas[s.$ref.split('/').pop()!] : s;
    if (!target || !('properties' in target)) throw new Error('A query type must be an object type');
    return target as OpenApi.IJsonSchema.IObject;
  }
}

function queryParameters(pool: SchemaPool, unit: Unit): Json[] {
  const o = pool.object(unit);
  const required = new Set(o.required ?? []);
  return Object.entries(o.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema as OpenApi.IJsonSchema & { description?: string };
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** Tags grouped by API, in the order operations first use them. */
function tagGroups(operations: Operation[]): { name: string; tags: string[] }[] {
  const groups = new Map<string, Set<string>>();
  for (const op of operations) {
    const api = op.auth === 'none' ? 'Service' : op.path.startsWith('/admin/') ? 'Admin API' : 'Application API';
    if (!groups.has(api)) groups.set(api, new Set());
    groups.get(api)!.add(op.tag);
  }
  return [...groups].map(([name, tags]) => ({ name, tags: [...tags] }));
}

const SECURITY: Record<Operation['auth'], Json[]> = {
  application: [{ AdminKey: [] }, { ApplicationKey: [] }],
  admin: [{ AdminKey: [] }],
  none: [],
};

const json = (schema: OpenApi.IJsonSchema) => ({ 'application/json': { schema } });

function version(): string {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * A copy with the members of each union (`oneOf`) in a fixed order (by their
 * JSON text). TypeScript orders a union's members by when the compiler first
 * met each one anywhere in the program, so typia's order moved with unrelated
 * code; sorted, the document changes only when a type does (and `oneOf` is
 * unordered).
 */
export function sortUnions<T>(x: T): T {
  if (Array.isArray(x)) return x.map(sortUnions) as T;
  if (!x || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) out[k] = sortUnions(v);
  if (Array.isArray(out.oneOf)) {
    out.oneOf = out.oneOf.map((m) => [JSON.stringify(m), m] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, m]) => m);
  }
  return out as T;
}

/** The OpenAPI 3.1 document of the described operations. */
export function buildDocument(operations: Operation[], errorBody: Unit): Json {
  const pool = new SchemaPool();
  const error = pool.add(errorBody);
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) {
    const p = (paths[openApiPath(op.path)] ??= {});
    const method = openApiMethod(op.method);
    if (p[method]) throw new Error(`${method.toUpperCase()} ${op.path} is described twice`);
    const keyed = op.auth !== 'none';
    const parameters: Json[] = [
      ...pathParameters(op.path),
      ...(op.query ? queryParameters(pool, op.query) : []),
      ...((op.tenant ?? keyed) ? [{ $ref: '#/components/parameters/TenantId' }] : []),
      ...(op.idempotencyKey ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ];
    const responses: Record<string, Json> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = { description: r.description, ...(r.schema ? { content: json(pool.add(r.schema)) } : {}) };
    }
    responses.default = { description: 'An error, explained in `error`', content: json(error) };
    p[method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: json(pool.add(op.body)) } } : {}),
      responses,
      security: SECURITY[op.auth],
      ...(op.messages
        ? { 'x-laurel-live': { description: op.messages.description, client: pool.add(op.messages.client), server: pool.add(op.messages.server) } }
        : {}),
    };
  }

  const groups = tagGroups(operations);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Laurel',
      version: version(),
      description:
        'Self-hosted gamification: the Application API (`/v1`) your product calls as users act, and the Admin API ' +
        '(`/admin/v1`) that configures metrics, points, achievements, streaks, leaderboards, tenants, keys and webhooks.',
    },
    tags: groups.flatMap((g) => g.tags).map((name) => ({ name })),
    'x-tagGroups': groups,
    security: SECURITY.admin,
    paths: sortUnions(paths),
    components: {
      schemas: sortUnions(pool.schemas),
      securitySchemes: {
        AdminKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'The admin key: every route, any user.' },
        ApplicationKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-KEY',
          description: 'An application key: Application API routes, for the one user (and tenant) it was created for.',
        },
      },
      parameters: {
        TenantId: {
          name: 'Tenant-ID',
          in: 'header',
          required: false,
          description: "The tenant's customerId. Without it: an application key's own tenant, else the default tenant.",
          schema: { type: 'string' },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Sending the same key again for the same user and metric counts the event once (at most 255 characters).',
          schema: { type: 'string', maxLength: 255 },
        },
      },
    },
  };
}
