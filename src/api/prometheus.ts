import type { Config } from '../config';
import { safeEqual } from '../auth/api-keys';
import { HttpError } from '../errors';
import { prebuilt, route } from './define';
import { registry } from '../observability/metrics';
import { scrape } from '../observability/metrics-workers';

/** `GET /metrics` in Prometheus's text format; open unless METRICS_TOKEN is set. */
export function prometheusRoutes(config: Config) {
  const expected = config.metricsToken === undefined ? null : `Bearer ${config.metricsToken}`;
  return [
    route({
      method: 'get', path: '/metrics', operationId: 'prometheus_metrics', tag: 'Service', auth: 'none',
      summary: 'Prometheus metrics (text exposition format)',
      description: 'Open unless METRICS_TOKEN is set; then send `Authorization: Bearer <token>`.',
      responses: { 200: { description: 'Every metric, summed over all worker processes' } },
      handler: async ({ req }) => {
        if (expected !== null && !safeEqual(req.authorization, expected)) {
          throw new HttpError(401, 'Missing or invalid metrics token', { 'WWW-Authenticate': 'Bearer' });
        }
        // Text, not JSON: the reply is made here.
        return prebuilt({ status: 200, body: await scrape(), headers: { 'Content-Type': registry.contentType } });
      },
    }),
  ];
}
