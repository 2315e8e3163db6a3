import typia from 'typia';
import { Ctx, identify } from '../../context';
import { requireUser } from '../../auth/auth';
import { check, jsonBody } from '../../http/body';
import { invalid } from '../../errors';
import { reply, Request, Route } from '../../http/server';
import { recordEvent } from '../../services/record-event';
import type { EventBody } from '../../wire/app';
const validateEvent = typia.createValidate<EventBody>();

export function eventRoutes(ctx: Ctx): Route[] {
  const handler = (req: Request) => submitEvent(ctx, req);
  return [
    { method: 'post', pattern: '/api/metrics/:key/event', handler, body: true, documents400: true },
    { method: 'post', pattern: '/v1/metrics/:key/event', handler, body: true, documents400: true },
  ];
}

async function submitEvent(ctx: Ctx, req: Request) {
  const { principal, tenant } = await identify(ctx, req);
  const body = check(validateEvent, jsonBody(req));
  requireUser(principal, body.user.id);
  if (req.idempotencyKey.length > 255) throw invalid('Idempotency-Key must be at most 255 characters');
  const r = await recordEvent(ctx, tenant, req.params[0]!, body, req.idempotencyKey);
  return reply(r.replayed ? 202 : 201, r.response);
}
