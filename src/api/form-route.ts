import type { Ctx } from '../context';
import type { Method, Route } from '../http/server';
import { toRoute, type Responses, type RouteDef } from './define';

/**
 * A route that takes an HTML form (`application/x-www-form-urlencoded`),
 * which define.ts does not read (its bodies are JSON, validated by typia):
 * served with its raw body read, for the handler to parse from `req.body`.
 * Described with no request body.
 */
export const formRoute = <P extends string, R extends Responses>(def: RouteDef<P, undefined, undefined, R, 'post'>) => ({ ...def, readsForm: true as const });

/** The server's route for a definition (define.ts's `toRoute`), reading the body of a `formRoute`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a definition of any parameter, query, body and response types
export function servedRoute(ctx: Ctx, def: RouteDef<string, any, any, any, Method>): Route {
  const r = toRoute(ctx, def);
  return 'readsForm' in def ? { ...r, body: true } : r;
}
