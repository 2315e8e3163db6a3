import type { IJsonSchemaUnit, IValidation } from 'typia';
import type { Ctx } from '../context';
import { requireAdmin, type Principal } from '../auth/auth';
import { check, jsonBody } from '../http/body';
import { reply, type Method, type Reply, type Request, type Route } from '../http/server';
import type { Tenant } from '../store/tenants';

/*
 * Each route is declared once, here in one shape: method, path, who may call
 * it, its query and body types (validated by typia), its responses by status
 * and its OpenAPI text. The server runs it (`toRoute`), /openapi.json
 * describes it (api/openapi/document.ts), and the compiler checks that the
 * handler returns one of the declared responses.
 *
 * A new route: `route({ method, path: '/v1/things/:id', auth, operationId, tag,
 * summary, query: io(typia.http.createValidateQuery<Q>(), typia.json.schema<Q>()),
 * body: io(typia.createValidate<B>(), typia.json.schema<B>()), responses: { 200:
 * { description, schema: typia.json.schema<R>() } }, handler: async ({ params,
 * query, body, principal, tenant }) => ok(value) })`, with Q, B and R from
 * src/wire/, listed in app.ts. `params.id` is named after the pattern; `ok`
 * or `answer(201, value)` must match a declared response. Append its
 * operationId to api/openapi/order.ts only if it must sit at a given place
 * in the document. See docs/development.md.
 */

/** A typia-generated JSON schema standing for type T. */
export type Schema<T> = IJsonSchemaUnit<'3.1', T>;

/** A type as validated at the edge and described in /openapi.json: both made by typia from the same T. */
export interface Io<T, In = unknown> {
  validate: (input: In) => IValidation<T>;
  schema: Schema<T>;
}

/** Pairs a typia validator with the typia schema of the same type (the compiler refuses two different types). */
export const io = <T, In>(validate: (input: In) => IValidation<T>, schema: Schema<NoInfer<T>>): Io<T, In> => ({ validate, schema });

/** Who may call a route: either kind of key, the admin key only, or anyone (service routes). */
export type Auth = 'application' | 'admin' | 'none';

/** `/v1/users/:id/metrics/:key` → `'id' | 'key'`. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** A route's path parameters by name, URL-decoded. */
export type Params<P extends string> = { readonly [K in ParamNames<P>]: string };

export interface ResponseDoc {
  description: string;
  schema?: Schema<unknown>;
}

export type Responses = Record<number, ResponseDoc>;

/** One declared response: its status, its body (of the declared type) and any headers. */
export type Answer<R extends Responses> = {
  [S in keyof R & number]: { status: S; body: R[S] extends { schema: Schema<infer T> } ? T : undefined; headers?: Record<string, string> };
}[keyof R & number];

/** A reply made whole by the handler (HTML, a cached document, a status the declared ones cannot say): not checked against them. */
export interface Prebuilt {
  prebuilt: Reply;
}

/** Who called, when the route takes a key (neither is meaningful on `auth: 'none'` routes; `tenant` not with `tenant: false`). */
interface Caller {
  principal: Principal;
  tenant: Tenant;
}

export interface Input<P extends string, Q, B> extends Caller {
  req: Request;
  params: Params<P>;
  query: Q;
  body: B;
}

export interface RouteDef<P extends string = string, Q = unknown, B = unknown, R extends Responses = Responses, M extends Method = Method> {
  method: M;
  /** The pattern as the router reads it (`/v1/users/:id`, see http/router.ts). */
  path: P;
  auth: Auth;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Whether Tenant-ID selects the tenant (default: when a key is required). */
  tenant?: boolean;
  idempotencyKey?: boolean;
  query?: Io<Q, URLSearchParams>;
  /**
   * A query described but read by the handler from `req.query`, where the
   * type cannot say what is accepted (aliases such as `start_date`, a value
   * Trophy reads leniently). Prefer `query`.
   */
  queryDoc?: Schema<unknown>;
  body?: Io<B>;
  /** The body may be left out (then `body` is undefined). */
  bodyOptional?: boolean;
  /** Success responses by status (errors are `{ error }`, described once for all). */
  responses: R;
  /** See Route.documents400. */
  documents400?: boolean;
  maxBodyBytes?: number;
  /**
   * The body is an HTML form (`application/x-www-form-urlencoded`), read raw
   * for the handler to parse from `req.body` (`body` describes JSON only).
   */
  form?: true;
  handler: (input: Input<P, Q, B>) => Promise<Answer<R> | Prebuilt>;
}

/** Only described: an operation another part of the server serves (the WebSocket upgrade). */
export type DescribedDef = Omit<RouteDef, 'handler'> & { messages?: { client: Schema<unknown>; server: Schema<unknown>; description: string } };

/** Declare a route: the type parameters are inferred from the path, the query and body types, and the responses. */
export const route = <P extends string, Q = undefined, B = undefined, R extends Responses = Responses, M extends Method = Method>(
  def: RouteDef<P, Q, B, R, M>,
): RouteDef<P, Q, B, R, M> => def;

// What a declared route takes and answers, for checks against it (test/client-routes.test.ts).
/* eslint-disable @typescript-eslint/no-explicit-any -- a definition of any parameter, query, body and response types */
export type QueryOf<D> = D extends RouteDef<string, infer Q, any, any, any> ? Q : never;
export type BodyOf<D> = D extends RouteDef<string, any, infer B, any, any> ? B : never;
/** The body of a success answer (2xx) of a route. */
export type SuccessOf<D> = D extends RouteDef<string, any, any, infer R, any> ? Extract<Answer<R>, { status: 200 | 201 | 202 }>['body'] : never;

/** A 200 answer. */
export const ok = <T>(body: T) => ({ status: 200 as const, body });
/** An answer with another declared status. */
export const answer = <S extends number, T>(status: S, body: T, headers?: Record<string, string>) => ({ status, body, headers });
export const prebuilt = (r: Reply): Prebuilt => ({ prebuilt: r });

/** Names of a pattern's parameters, in order. */
const paramNames = (path: string) => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));

/**
 * The server's route for a definition: who is calling (401/403 first, as
 * before any input is looked at), then the query, then the body (422 naming
 * the field), then the handler; its answer serialized.
 */
export function toRoute(ctx: Ctx, def: RouteDef<string, any, any, any, Method>): Route {
/* eslint-enable @typescript-eslint/no-explicit-any */
  const names = paramNames(def.path);
  // Open routes have no caller: reading one throws rather than passing for an admin.
  const noCaller = { principal: undefined, tenant: undefined } as unknown as Caller;
  const handler = async (req: Request): Promise<Reply> => {
    let caller = noCaller;
    if (def.auth !== 'none') {
      // The key, then the admin role, then the tenant (account-wide routes take none).
      const principal = await ctx.auth.authenticate(req.apiKey);
      if (def.auth === 'admin') requireAdmin(principal);
      caller = { principal, tenant: def.tenant === false ? (null as unknown as Tenant) : await ctx.tenants.resolve(principal, req.tenantId) };
    }
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) params[names[i]!] = req.params[i]!;
    const query = def.query ? check(def.query.validate as (x: unknown) => IValidation<unknown>, req.query, 'query') : undefined;
    const body = def.body && (req.body.length || !def.bodyOptional) ? check(def.body.validate, jsonBody(req)) : undefined;
    const out = await def.handler({ req, params, query, body, principal: caller.principal, tenant: caller.tenant });
    return 'prebuilt' in out ? out.prebuilt : reply(out.status, out.body, out.headers);
  };
  return {
    method: def.method,
    pattern: def.path,
    handler,
    ...(def.body || def.form ? { body: true } : {}),
    ...(def.documents400 ? { documents400: true } : {}),
    ...(def.maxBodyBytes ? { maxBodyBytes: def.maxBodyBytes } : {}),
  };
}
