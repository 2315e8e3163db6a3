import { Laurel } from '../../src/client';
import { Router } from '../../src/http/router';
import { openApiMethod } from '../../src/api/openapi/document';
import type { DescribedDef } from '../../src/api/define';

/** Types equal both ways (for compile-time checks of the client against route definitions). */
export type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
/** Compiles only when T is `true`. */
export const holds = <T extends true>() => undefined as unknown as T;

/**
 * The typed client with its requests matched against declared routes instead
 * of sent: `last()` names the route the latest call reached
 * (`get /v1/users/:id`, or `unmatched …`).
 */
export function clientOver(declared: readonly DescribedDef[]): { laurel: Laurel; last: () => string } {
  const router = new Router<DescribedDef>();
  for (const d of declared) router.add(openApiMethod(d.method).toUpperCase(), d.path, d);
  let last = '';
  const laurel = new Laurel({
    apiKey: 'k',
    baseUrl: 'http://laurel.test',
    fetch: (async (url: string, init: RequestInit) => {
      const path = new URL(url).pathname;
      const d = router.find(init.method!, path)?.value;
      last = d ? `${openApiMethod(d.method)} ${d.path}` : `unmatched ${init.method} ${path}`;
      return new Response('{}', { status: 200 });
    }) as typeof fetch,
  });
  return { laurel, last: () => last };
}
