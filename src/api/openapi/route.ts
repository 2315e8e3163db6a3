import typia from 'typia';
import { reply, Reply } from '../../http/server';
import type { ErrorBody } from '../../wire/app';
import { prebuilt, route, type DescribedDef } from '../define';
import { buildDocument, Operation } from './document';
import { DOCUMENT_ORDER } from './order';

/** What the document says of a declared route. */
const operationOf = (d: DescribedDef): Operation => ({
  method: d.method, path: d.path, operationId: d.operationId, tag: d.tag, summary: d.summary, description: d.description, auth: d.auth,
  tenant: d.tenant, idempotencyKey: d.idempotencyKey, query: d.query?.schema ?? d.queryDoc, body: d.body?.schema, responses: d.responses, messages: d.messages,
});

const rank = new Map(DOCUMENT_ORDER.map((id, i) => [id, i]));

/** Every described operation, in document order; a route missing here is missing from the document (and test/openapi fails). */
export function operations(defs: readonly DescribedDef[]): Operation[] {
  const all = defs.map(operationOf);
  const at = (o: Operation) => rank.get(o.operationId) ?? DOCUMENT_ORDER.length;
  // A stable sort: operations not listed keep their registration order, after the listed ones.
  return all.sort((a, b) => at(a) - at(b));
}

export const openApiDocument = (defs: readonly DescribedDef[]) => buildDocument(operations(defs), typia.json.schema<ErrorBody>());

/** `GET /openapi.json`, open to all (it holds nothing secret); built on first request from the routes `described` gives. */
export function openApiRoute(described: () => readonly DescribedDef[]) {
  let cached: Reply | null = null;
  return route({
    method: 'get', path: '/openapi.json', operationId: 'openapi', tag: 'Service', auth: 'none',
    summary: 'This description of both APIs (OpenAPI 3.1)',
    responses: { 200: { description: 'The OpenAPI document' } },
    // Serialized once (it is large): the reply is kept.
    handler: async () => prebuilt((cached ??= reply(200, openApiDocument(described())))),
  });
}
