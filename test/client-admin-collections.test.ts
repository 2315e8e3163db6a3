import t from 'tap';
import type { AdminCollection, Laurel } from '../src/client';
import type { Ctx } from '../src/context';
import { openApiMethod } from '../src/api/openapi/document';
import type { BodyOf, DescribedDef, QueryOf, SuccessOf } from '../src/api/define';
import type { ParsedBatch } from '../src/api/admin/batch';
import type { ListQuery } from '../src/wire/admin';
import { metricRoutes } from '../src/api/admin/metrics';
import { attributeRoutes } from '../src/api/admin/attributes';
import { pointsRoutes } from '../src/api/admin/points';
import { achievementRoutes } from '../src/api/admin/achievements';
import { leaderboardAdminRoutes } from '../src/api/admin/leaderboards';
import { tenantRoutes } from '../src/api/admin/tenants';
import { webhookRoutes } from '../src/api/admin/webhooks';
import { clientOver, holds, type Equal } from './helpers/client-calls';

// The typed client's Admin API collections (`laurel/client`) against their
// declared routes (api/admin/collection.ts): the types, checked by the
// compiler when this file builds, and the paths each method reaches.

// ---- types: a client collection that drifts from its routes fails the build ----

type All<T extends boolean[]> = T extends true[] ? true : false;
/** A collection's five definitions, in collectionRoutes' order. */
type Five = readonly [unknown, unknown, unknown, unknown, unknown];
/** The client collection takes and answers what its five routes declare. */
type Matches<C, D extends Five> = C extends AdminCollection<infer Item, infer Create, infer Update>
  ? All<[
    Equal<QueryOf<D[0]>, ListQuery>, Equal<Item[], SuccessOf<D[0]>>, Equal<Item, SuccessOf<D[1]>>,
    Equal<ParsedBatch<Create>, BodyOf<D[2]>>, Equal<Awaited<ReturnType<C['create']>>, SuccessOf<D[2]>>,
    Equal<ParsedBatch<Update>, BodyOf<D[3]>>, Equal<Awaited<ReturnType<C['update']>>, SuccessOf<D[3]>>,
    Equal<Awaited<ReturnType<C['delete']>>, SuccessOf<D[4]>>,
  ]>
  : false;

type Admin = Laurel['admin'];
type Points = ReturnType<typeof pointsRoutes>;
/** Elements from..from+4 of a tuple. */
type Slice<D extends readonly unknown[], From extends number> = From extends 0 ? readonly [D[0], D[1], D[2], D[3], D[4]]
  : From extends 5 ? readonly [D[5], D[6], D[7], D[8], D[9]]
  : From extends 10 ? readonly [D[10], D[11], D[12], D[13], D[14]]
  : readonly [D[15], D[16], D[17], D[18], D[19]];
holds<Matches<Admin['metrics'], ReturnType<typeof metricRoutes>>>();
holds<Matches<Admin['attributes'], ReturnType<typeof attributeRoutes>>>();
holds<Matches<Admin['points'], Slice<Points, 0>>>();
holds<Matches<ReturnType<Admin['points']['triggers']>, Slice<Points, 5>>>();
holds<Matches<ReturnType<Admin['points']['levels']>, Slice<Points, 10>>>();
holds<Matches<ReturnType<Admin['points']['boosts']>, Slice<Points, 15>>>();
holds<Matches<Admin['achievements'], ReturnType<typeof achievementRoutes>>>();
holds<Matches<Admin['leaderboards'], ReturnType<typeof leaderboardAdminRoutes>>>();
holds<Matches<Admin['tenants'], ReturnType<typeof tenantRoutes>>>();
holds<Matches<Admin['webhooks'], Slice<ReturnType<typeof webhookRoutes>, 0>>>();

// ---- paths: each call reaches the route it is checked against above ----

t.test("each method of the client's Admin API collections calls its declared route", async (t) => {
  const ctx = {} as Ctx;
  const declared: DescribedDef[] = [
    ...metricRoutes(ctx), ...attributeRoutes(ctx), ...pointsRoutes(ctx), ...achievementRoutes(ctx), ...leaderboardAdminRoutes(ctx),
    ...tenantRoutes(ctx), ...webhookRoutes(ctx),
  ];
  const { laurel, last } = clientOver(declared);
  const id = '00000000-0000-0000-0000-000000000001';
  const a = laurel.admin;
  const collections: [string, AdminCollection<unknown, never, never, unknown>][] = [
    ['/admin/v1/metrics', a.metrics], ['/admin/v1/attributes', a.attributes], ['/admin/v1/points', a.points],
    ['/admin/v1/points/:systemId/triggers', a.points.triggers(id)], ['/admin/v1/points/:systemId/levels', a.points.levels(id)],
    ['/admin/v1/points/:systemId/boosts', a.points.boosts(id)], ['/admin/v1/achievements', a.achievements],
    ['/admin/v1/leaderboards', a.leaderboards], ['/admin/v1/tenants', a.tenants], ['/admin/v1/webhooks', a.webhooks],
  ];
  const called = new Set<string>();
  for (const [path, c] of collections) {
    const calls: [string, () => Promise<unknown>][] = [
      [`get ${path}`, () => c.list()], [`get ${path}/:id`, () => c.get(id)], [`post ${path}`, () => c.create([])],
      [`patch ${path}`, () => c.update([])], [`delete ${path}`, () => c.delete([id])],
    ];
    for (const [route, call] of calls) {
      await call();
      t.equal(last(), route, route);
      called.add(route);
    }
  }
  const webhooks: [string, () => Promise<unknown>][] = [
    ['post /admin/v1/webhooks/:id/rotate-secret', () => a.webhooks.rotateSecret(id)],
    ['get /admin/v1/webhooks/:id/deliveries', () => a.webhooks.deliveries(id)],
    ['post /admin/v1/webhooks/:id/redeliver', () => a.webhooks.redeliverDead(id)],
    ['post /admin/v1/webhooks/deliveries/:deliveryId/redeliver', () => a.webhooks.redeliver(id)],
  ];
  for (const [route, call] of webhooks) {
    await call();
    t.equal(last(), route, route);
    called.add(route);
  }
  const without = declared.map((d) => `${openApiMethod(d.method)} ${d.path}`).filter((r) => !called.has(r));
  t.same(without, [], 'no declared route without a client method');
});
