import t from 'tap';
import type { Laurel } from '../src/client';
import type { Ctx } from '../src/context';
import type { Config } from '../src/config';
import { openApiMethod } from '../src/api/openapi/document';
import type { BodyOf, DescribedDef, QueryOf, SuccessOf } from '../src/api/define';
import { eventRoutes } from '../src/api/app/events';
import { userRoutes } from '../src/api/app/users';
import { preferenceRoutes } from '../src/api/app/preferences';
import { wrappedRoutes } from '../src/api/app/wrapped';
import { pointsReadRoutes } from '../src/api/app/points';
import { achievementRoutes } from '../src/api/app/achievements';
import { streakRoutes } from '../src/api/app/streaks';
import { leaderboardRoutes } from '../src/api/app/leaderboards';
import { liveRoutes } from '../src/api/app/live';
import { healthRoutes } from '../src/api/health';
import { prometheusRoutes } from '../src/api/prometheus';
import { clientOver, holds, type Equal } from './helpers/client-calls';

// The typed client (`laurel/client`) against the declared routes: each of its
// methods for a declared route calls that route's method and path, and (checked
// by the compiler when this file builds) takes the route's query and body types
// and resolves to its success response type.

// ---- types: a client method that drifts from its route fails the build ----

type Declared =
  | ReturnType<typeof eventRoutes>[number] | ReturnType<typeof userRoutes>[number] | ReturnType<typeof preferenceRoutes>[number]
  | ReturnType<typeof wrappedRoutes>[number] | ReturnType<typeof pointsReadRoutes>[number] | ReturnType<typeof achievementRoutes>[number]
  | ReturnType<typeof streakRoutes>[number] | ReturnType<typeof leaderboardRoutes>[number] | ReturnType<typeof liveRoutes>[number]
  | ReturnType<typeof healthRoutes>[number];
type Def<M extends string, P extends string> = Extract<Declared, { method: M; path: P }>;

type Fn = (...args: any[]) => Promise<unknown>;
/** The client method answers what the route declares. */
type Answers<F extends Fn, M extends string, P extends string> = Equal<Awaited<ReturnType<F>>, SuccessOf<Def<M, P>>>;
/** Parameter `i` of the client method is the route's query (or body) type. */
type Takes<F extends Fn, I extends number, T> = Equal<NonNullable<Parameters<F>[I]>, T>;

type App = Laurel;
type U = App['users'];
holds<Answers<App['events']['send'], 'post', '/v1/metrics/:key/event'>>();
holds<Takes<App['events']['send'], 1, BodyOf<Def<'post', '/v1/metrics/:key/event'>>>>();
holds<Answers<U['create'], 'post', '/v1/users'>>();
holds<Takes<U['create'], 0, BodyOf<Def<'post', '/v1/users'>>>>();
holds<Answers<U['get'], 'get', '/v1/users/:id'>>();
holds<Answers<U['identify'], 'put', '/v1/users/:id'>>();
holds<Takes<U['identify'], 1, BodyOf<Def<'put', '/v1/users/:id'>>>>();
holds<Answers<U['update'], 'patch', '/v1/users/:id'>>();
holds<Takes<U['update'], 1, BodyOf<Def<'patch', '/v1/users/:id'>>>>();
holds<Answers<U['metrics'], 'get', '/v1/users/:id/metrics'>>();
holds<Answers<U['metric'], 'get', '/v1/users/:id/metrics/:key'>>();
holds<Answers<U['metricEventSummary'], 'get', '/v1/users/:id/metrics/:key/event-summary'>>();
holds<Answers<U['achievements'], 'get', '/v1/users/:id/achievements'>>();
holds<Takes<U['achievements'], 1, QueryOf<Def<'get', '/v1/users/:id/achievements'>>>>();
holds<Answers<U['streak'], 'get', '/v1/users/:id/streak'>>();
holds<Takes<U['streak'], 1, QueryOf<Def<'get', '/v1/users/:id/streak'>>>>();
holds<Answers<U['preferences'], 'get', '/v1/users/:id/preferences'>>();
holds<Answers<U['updatePreferences'], 'patch', '/v1/users/:id/preferences'>>();
holds<Takes<U['updatePreferences'], 1, BodyOf<Def<'patch', '/v1/users/:id/preferences'>>>>();
holds<Answers<U['wrapped'], 'get', '/v1/users/:id/wrapped'>>();
holds<Takes<U['wrapped'], 1, QueryOf<Def<'get', '/v1/users/:id/wrapped'>>>>();
holds<Answers<U['points'], 'get', '/v1/users/:id/points/:key'>>();
holds<Takes<U['points'], 2, QueryOf<Def<'get', '/v1/users/:id/points/:key'>>>>();
holds<Answers<U['pointsEventSummary'], 'get', '/v1/users/:id/points/:key/event-summary'>>();
holds<Answers<U['pointsBoosts'], 'get', '/v1/users/:id/points/:key/boosts'>>();
holds<Answers<U['leaderboard'], 'get', '/v1/users/:id/leaderboards/:key'>>();
holds<Takes<U['leaderboard'], 2, QueryOf<Def<'get', '/v1/users/:id/leaderboards/:key'>>>>();
holds<Answers<App['points']['system'], 'get', '/v1/points/:key'>>();
holds<Answers<App['points']['levels'], 'get', '/v1/points/:key/levels'>>();
holds<Answers<App['points']['boosts'], 'get', '/v1/points/:key/boosts'>>();
holds<Answers<App['points']['summary'], 'get', '/v1/points/:key/summary'>>();
holds<Takes<App['points']['summary'], 1, QueryOf<Def<'get', '/v1/points/:key/summary'>>>>();
holds<Answers<App['points']['levelSummary'], 'get', '/v1/points/:key/level-summary'>>();
holds<Answers<App['achievements']['all'], 'get', '/v1/achievements'>>();
holds<Answers<App['achievements']['complete'], 'post', '/v1/achievements/:key/complete'>>();
holds<Takes<App['achievements']['complete'], 1, BodyOf<Def<'post', '/v1/achievements/:key/complete'>>>>();
holds<Answers<App['streaks']['list'], 'get', '/v1/streaks'>>();
holds<Answers<App['streaks']['rankings'], 'get', '/v1/streaks/rankings'>>();
holds<Takes<App['streaks']['rankings'], 0, QueryOf<Def<'get', '/v1/streaks/rankings'>>>>();
holds<Answers<App['leaderboards']['all'], 'get', '/v1/leaderboards'>>();
holds<Takes<App['leaderboards']['all'], 0, QueryOf<Def<'get', '/v1/leaderboards'>>>>();
holds<Answers<App['leaderboards']['get'], 'get', '/v1/leaderboards/:key'>>();
holds<Takes<App['leaderboards']['get'], 1, QueryOf<Def<'get', '/v1/leaderboards/:key'>>>>();
holds<Answers<App['liveTokens']['create'], 'post', '/v1/live/tokens'>>();
holds<Takes<App['liveTokens']['create'], 0, BodyOf<Def<'post', '/v1/live/tokens'>>>>();
holds<Answers<Laurel['health'], 'get', '/healthz'>>();

// ---- paths: each call reaches the route it is checked against above ----

/** The declared routes, built without a server (their handlers are never run here). */
function declared(): DescribedDef[] {
  const ctx = {} as Ctx;
  const none = {} as never;
  return [
    ...eventRoutes(ctx), ...userRoutes(ctx), ...preferenceRoutes(ctx), ...wrappedRoutes(ctx), ...pointsReadRoutes(ctx),
    ...achievementRoutes(ctx), ...streakRoutes(ctx), ...leaderboardRoutes(ctx), ...liveRoutes(ctx, none), ...healthRoutes(ctx, none, none),
    ...prometheusRoutes({} as Config),
  ];
}

t.test('each client method of the Application API calls the route its types are checked against', async (t) => {
  const { laurel, last } = clientOver(declared());
  const calls: [string, () => Promise<unknown>][] = [
    ['post /v1/metrics/:key/event', () => laurel.events.send('m', { user: { id: 'u' }, value: 1 })],
    ['post /v1/users', () => laurel.users.create({ id: 'u' })],
    ['get /v1/users/:id', () => laurel.users.get('u')],
    ['put /v1/users/:id', () => laurel.users.identify('u', {})],
    ['patch /v1/users/:id', () => laurel.users.update('u', {})],
    ['get /v1/users/:id/metrics', () => laurel.users.metrics('u')],
    ['get /v1/users/:id/metrics/:key', () => laurel.users.metric('u', 'm')],
    ['get /v1/users/:id/metrics/:key/event-summary', () => laurel.users.metricEventSummary('u', 'm', { aggregation: 'daily', startDate: '2026-01-01', endDate: '2026-01-02' })],
    ['get /v1/users/:id/achievements', () => laurel.users.achievements('u')],
    ['get /v1/users/:id/streak', () => laurel.users.streak('u')],
    ['get /v1/users/:id/preferences', () => laurel.users.preferences('u')],
    ['patch /v1/users/:id/preferences', () => laurel.users.updatePreferences('u', {})],
    ['get /v1/users/:id/wrapped', () => laurel.users.wrapped('u')],
    ['get /v1/users/:id/points/:key', () => laurel.users.points('u', 'xp')],
    ['get /v1/users/:id/points/:key/event-summary', () => laurel.users.pointsEventSummary('u', 'xp', { aggregation: 'daily', startDate: '2026-01-01', endDate: '2026-01-02' })],
    ['get /v1/users/:id/points/:key/boosts', () => laurel.users.pointsBoosts('u', 'xp')],
    ['get /v1/users/:id/leaderboards/:key', () => laurel.users.leaderboard('u', 'b')],
    ['get /v1/points/:key', () => laurel.points.system('xp')],
    ['get /v1/points/:key/levels', () => laurel.points.levels('xp')],
    ['get /v1/points/:key/boosts', () => laurel.points.boosts('xp')],
    ['get /v1/points/:key/summary', () => laurel.points.summary('xp')],
    ['get /v1/points/:key/level-summary', () => laurel.points.levelSummary('xp')],
    ['get /v1/achievements', () => laurel.achievements.all()],
    ['post /v1/achievements/:key/complete', () => laurel.achievements.complete('a', { user: { id: 'u' } })],
    ['get /v1/streaks', () => laurel.streaks.list(['u'])],
    ['get /v1/streaks/rankings', () => laurel.streaks.rankings()],
    ['get /v1/leaderboards', () => laurel.leaderboards.all()],
    ['get /v1/leaderboards/:key', () => laurel.leaderboards.get('b')],
    ['post /v1/live/tokens', () => laurel.liveTokens.create()],
    ['get /healthz', () => laurel.health()],
  ];
  for (const [route, call] of calls) {
    await call();
    t.equal(last(), route, route);
  }
  // Every declared Application API route has a client method (service routes but /healthz are not the client's).
  const called = new Set(calls.map(([r]) => r));
  const without = declared()
    .map((d) => `${openApiMethod(d.method)} ${d.path}`)
    .filter((r) => !called.has(r) && !['get /readyz', 'get /metrics', 'post /api/metrics/:key/event'].includes(r));
  t.same(without, [], 'no declared route without a client method');
});
