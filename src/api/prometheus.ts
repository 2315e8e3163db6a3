import type { Config } from '../config';
import { safeEqual } from '../auth/api-keys';
import { HttpError } from '../errors';
import type { Route } from '../http/server';
import { registry } from '../observability/metrics';
import { scrape } from '../observability/metrics-workers';

/** `GET /metrics` in Prometheus's text format; open unless METRICS_TOKEN is set. */
export function prometheusRoutes(config: Config): Route[] {
  const expected = config.metricsToken === undefined ? null : `Bearer ${config.metricsToken}`;
  return [
    {
      method: 'get',
      pattern: '/metrics',
      handler: async (req) => {
        if (expected !== null && !safeEqual(req.authorization, expected)) {
          throw new HttpError(401, 'Missing or invalid metrics token', { 'WWW-Authenticate': 'Bearer' });
        }
        return { status: 200, body: await scrape(), headers: { 'Content-Type': registry.contentType } };
      },
    },
  ];
}
