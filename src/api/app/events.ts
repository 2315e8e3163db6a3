import typia from 'typia';
import type { Ctx } from '../../context';
import { requireUser } from '../../auth/auth';
import { invalid } from '../../errors';
import { recordEvent } from '../../services/record-event';
import type { EventBody, EventResponse } from '../../wire/app';
import { answer, Input, io, route } from '../define';

const EVENT = {
  method: 'post',
  tag: 'Events',
  summary: "Send an event: add a value to a user's metric total",
  description:
    'Counts the value toward the metric and evaluates everything it feeds: achievements, the streak, points and leaderboards. ' +
    'The user is created on first sight, and any profile fields sent are saved.',
  auth: 'application',
  idempotencyKey: true,
  documents400: true,
  body: io(typia.createValidate<EventBody>(), typia.json.schema<EventBody>()),
  responses: {
    201: { description: 'Counted', schema: typia.json.schema<EventResponse>() },
    202: { description: 'Already counted under this Idempotency-Key: nothing changed', schema: typia.json.schema<EventResponse>() },
  },
} as const;

export function eventRoutes(ctx: Ctx) {
  return [
    route({ ...EVENT, path: '/v1/metrics/:key/event', operationId: 'metrics_event', handler: (x) => submitEvent(ctx, x) }),
    route({
      ...EVENT, path: '/api/metrics/:key/event', operationId: 'metrics_event_api', summary: `${EVENT.summary} (the same, under /api)`,
      handler: (x) => submitEvent(ctx, x),
    }),
  ];
}

async function submitEvent(ctx: Ctx, { req, params, body, principal, tenant }: Input<'/v1/metrics/:key/event', undefined, EventBody>) {
  requireUser(principal, body.user.id);
  if (req.idempotencyKey.length > 255) throw invalid('Idempotency-Key must be at most 255 characters');
  const r = await recordEvent(ctx, tenant, params.key, body, req.idempotencyKey);
  return r.replayed ? answer(202, r.response) : answer(201, r.response);
}
