import typia from 'typia';
import { reply, Reply, Route } from '../../http/server';
import type { ErrorBody } from '../../wire/app';
import { adminOperations } from './admin-operations';
import { appOperations } from './app-operations';
import { messageOperations } from './message-operations';
import { leagueOperations } from './league-operations';
import { buildDocument } from './document';

/** Every described operation; a route missing here is missing from the document (and test/openapi fails). */
export const operations = [...appOperations, ...adminOperations, ...messageOperations, ...leagueOperations];

export const openApiDocument = () => buildDocument(operations, typia.json.schema<ErrorBody>());

/** `GET /openapi.json`, open to all (it holds nothing secret); built on first request. */
export function openApiRoutes(): Route[] {
  let cached: Reply | null = null;
  return [{ method: 'get', pattern: '/openapi.json', handler: () => (cached ??= reply(200, openApiDocument())) }];
}
