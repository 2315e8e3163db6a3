import type {
  AchievementCompletion, AchievementWithStats, AttributesQuery, CompleteAchievementBody, EventBody, EventResponse, EventSummaryQuery,
  Health, IncludeFinishedQuery, LeaderboardQuery, LeaderboardRankings, LeaderboardSummary, LevelSummary, MetricProgress, PointsBoost,
  PointsLevel, PointsRange, PointsSystem, StreakRanking, StreakRankingsQuery, StreakSummary, SummaryPoint, User, UserAchievement, UserAchievementsQuery, UserInput,
  UserLeaderboard, UserLeaderboardQuery, UserPoints, UserPointsQuery, UserStreak, UserStreakQuery, UserWithId,
  UpdateUserPreferencesRequest, UserPreferencesResponse, WrappedQuery, WrappedResponse,
} from '../wire/app';
import type {
  AdminAchievement, AdminAttribute, AdminLeaderboard, AdminMetric, AdminPointsBoost, AdminPointsLevel, AdminPointsSystem,
  AdminPointsSystemWithItems, AdminPointsTrigger, AdminStreakPause, AdminTenant, ApplicationKey, CreateAchievement, CreateAttribute,
  CreateBoard, CreateBoost, Created, CreateKey, CreateLevel, CreateMetric, CreateSystem, CreateTenant, CreateTrigger, Deleted, FreezesBody,
  FreezesResponse, ListQuery, PatchAchievement, PatchBoard, PatchBoost, PatchLevel, PatchSystem, PatchTrigger, PausesBody, RestoreBody,
  RestoreResponse, StreakSettings, StreakSettingsResponse, UpdateAttribute, Updated, UpdatedKey, UpdateKey, UpdateMetric, UpdateTenant,
  AdminWebhook, PatchWebhook, Redelivered, RotatedSecret, WebhookDeliveriesQuery, WebhookDelivery, WebhookFields, WebhookWithSecret,
  DeadLetter, DeadLetterReplayed, BatchEvent, BatchEventsResponse, BatchRejection,
  ErasedUser, UserExport,
  AdminUserEvent, UserEventsQuery, EventsAnalyticsQuery, EventsPerDay, PointsAnalyticsQuery, PointsPerDay, AnalyticsRange, ActiveUsersPerDay,
  StreakDistribution, AchievementCompletionRate, ExperimentQuery, ExperimentAnalytics, LeaderboardRunStats,
  RetentionSettings, RetentionSettingsResponse,
} from '../wire/admin';

import type { LiveAround, LiveBoardUnavailable, LiveBoardUpdate, LiveToken, LiveTokenBody, LiveUserUpdate } from '../wire/live';

export type * from '../wire/app';
export type * from '../wire/admin';
export type * from '../wire/live';

export interface LaurelOptions {
  /** The admin key, or an application key (Application API, its own user only). */
  apiKey: string;
  /** Where Laurel listens, such as `http://localhost:3000`. */
  baseUrl: string;
  /** A tenant's customerId, sent as `Tenant-ID` on every call. */
  tenantId?: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/** A call Laurel refused or could not serve: the status and its `error` message. */
export class LaurelError extends Error {
  override readonly name = 'LaurelError';

  constructor(
    readonly status: number,
    message: string,
    /** The parsed response body (or its text). */
    readonly body: unknown,
    /** Seconds to wait before retrying, when the server said (429, 503). */
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

type QueryValue = string | number | boolean | readonly string[] | undefined;
type Query = { [name: string]: QueryValue };

interface Call {
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
}

type Send = <T>(method: string, path: string, call?: Call) => Promise<T>;

/** A path with each interpolated value URL-encoded as one segment. */
function path(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]!) : ''), '');
}

/** An Admin API config collection: list, get, batch create and update, delete by ids. */
export interface AdminCollection<Item, Create, Update, CreatedItem = Item> {
  list(query?: ListQuery): Promise<Item[]>;
  get(id: string): Promise<Item>;
  create(items: Create[]): Promise<Created<CreatedItem>>;
  update(items: Update[]): Promise<Updated<Item>>;
  delete(ids: string[]): Promise<Deleted>;
}

function collection<Item, Create, Update, CreatedItem = Item>(send: Send, base: string): AdminCollection<Item, Create, Update, CreatedItem> {
  return {
    list: (query) => send('GET', base, { query }),
    get: (id) => send('GET', `${base}/${encodeURIComponent(id)}`),
    create: (items) => send('POST', base, { body: items }),
    update: (items) => send('PATCH', base, { body: items }),
    delete: (ids) => send('DELETE', base, { query: { ids } }),
  };
}

/**
 * A typed client for Laurel's Application API (`/v1`) and Admin API
 * (`/admin/v1`). Every method resolves to the response body, or rejects with
 * a {@link LaurelError}.
 */
export class Laurel {
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: LaurelOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  /** The same client acting on another tenant. */
  forTenant(tenantId: string): Laurel {
    return new Laurel({ ...this.options, tenantId });
  }

  private readonly send: Send = async <T>(method: string, p: string, call: Call = {}): Promise<T> => {
    const headers: Record<string, string> = { 'X-API-KEY': this.options.apiKey, ...call.headers };
    if (this.options.tenantId !== undefined) headers['Tenant-ID'] = this.options.tenantId;
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    const res = await this.fetch(this.base + p + queryString(call.query as Query | undefined), { method, headers, body });
    const text = await res.text();
    let data: unknown = text;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    if (!res.ok) {
      const message = (data as { error?: unknown } | undefined)?.error;
      const retry = Number(res.headers.get('retry-after'));
      throw new LaurelError(res.status, typeof message === 'string' ? message : `${res.status} ${res.statusText}`, data, retry > 0 ? retry : null);
    }
    return data as T;
  };

  // ---- Application API ----

  readonly events = {
    /** Add `value` to a user's metric; an `idempotencyKey` makes a retry count once. */
    send: (metricKey: string, event: EventBody, options: { idempotencyKey?: string } = {}): Promise<EventResponse> =>
      this.send('POST', path`/v1/metrics/${metricKey}/event`, {
        body: event,
        headers: options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey },
      }),
  };

  readonly users = {
    create: (user: UserWithId): Promise<User> => this.send('POST', '/v1/users', { body: user }),
    get: (id: string): Promise<User> => this.send('GET', path`/v1/users/${id}`),
    /** Create or update. */
    identify: (id: string, user: UserInput): Promise<User> => this.send('PUT', path`/v1/users/${id}`, { body: user }),
    /** Update an existing user (404 if unknown). */
    update: (id: string, user: UserInput): Promise<User> => this.send('PATCH', path`/v1/users/${id}`, { body: user }),
    metrics: (id: string): Promise<MetricProgress[]> => this.send('GET', path`/v1/users/${id}/metrics`),
    metric: (id: string, metricKey: string): Promise<MetricProgress> => this.send('GET', path`/v1/users/${id}/metrics/${metricKey}`),
    metricEventSummary: (id: string, metricKey: string, query: EventSummaryQuery): Promise<SummaryPoint[]> =>
      this.send('GET', path`/v1/users/${id}/metrics/${metricKey}/event-summary`, { query }),
    achievements: (id: string, query?: UserAchievementsQuery): Promise<UserAchievement[]> =>
      this.send('GET', path`/v1/users/${id}/achievements`, { query }),
    streak: (id: string, query?: UserStreakQuery): Promise<UserStreak> => this.send('GET', path`/v1/users/${id}/streak`, { query }),
    preferences: (id: string): Promise<UserPreferencesResponse> => this.send('GET', path`/v1/users/${id}/preferences`),
    updatePreferences: (id: string, body: UpdateUserPreferencesRequest): Promise<UserPreferencesResponse> =>
      this.send('PATCH', path`/v1/users/${id}/preferences`, { body }),
    wrapped: (id: string, query?: WrappedQuery): Promise<WrappedResponse> => this.send('GET', path`/v1/users/${id}/wrapped`, { query }),
    points: (id: string, systemKey: string, query?: UserPointsQuery): Promise<UserPoints> =>
      this.send('GET', path`/v1/users/${id}/points/${systemKey}`, { query }),
    pointsEventSummary: (id: string, systemKey: string, query: EventSummaryQuery): Promise<SummaryPoint[]> =>
      this.send('GET', path`/v1/users/${id}/points/${systemKey}/event-summary`, { query }),
    pointsBoosts: (id: string, systemKey: string): Promise<PointsBoost[]> => this.send('GET', path`/v1/users/${id}/points/${systemKey}/boosts`),
    leaderboard: (id: string, boardKey: string, query?: UserLeaderboardQuery): Promise<UserLeaderboard> =>
      this.send('GET', path`/v1/users/${id}/leaderboards/${boardKey}`, { query }),
  };

  readonly points = {
    system: (key: string): Promise<PointsSystem> => this.send('GET', path`/v1/points/${key}`),
    levels: (key: string): Promise<PointsLevel[]> => this.send('GET', path`/v1/points/${key}/levels`),
    boosts: (key: string, query?: IncludeFinishedQuery): Promise<PointsBoost[]> => this.send('GET', path`/v1/points/${key}/boosts`, { query }),
    summary: (key: string, query?: AttributesQuery): Promise<PointsRange[]> => this.send('GET', path`/v1/points/${key}/summary`, { query }),
    levelSummary: (key: string): Promise<LevelSummary[]> => this.send('GET', path`/v1/points/${key}/level-summary`),
  };

  readonly achievements = {
    all: (): Promise<AchievementWithStats[]> => this.send('GET', '/v1/achievements'),
    /** Complete an `api`-triggered achievement for a user. */
    complete: (key: string, body: CompleteAchievementBody): Promise<AchievementCompletion> =>
      this.send('POST', path`/v1/achievements/${key}/complete`, { body }),
  };

  readonly streaks = {
    list: (userIds: string[]): Promise<StreakSummary[]> => this.send('GET', '/v1/streaks', { query: { userIds } }),
    /** The top users by current (`active`, default) or longest streak. */
    rankings: (query?: StreakRankingsQuery): Promise<StreakRanking[]> => this.send('GET', '/v1/streaks/rankings', { query }),
  };

  readonly leaderboards = {
    all: (query?: IncludeFinishedQuery): Promise<LeaderboardSummary[]> => this.send('GET', '/v1/leaderboards', { query }),
    get: (key: string, query?: LeaderboardQuery): Promise<LeaderboardRankings> => this.send('GET', path`/v1/leaderboards/${key}`, { query }),
  };

  /** Liveness (no key needed). */
  health(): Promise<Health> {
    return this.send('GET', '/healthz');
  }

  /** The OpenAPI 3.1 description of both APIs. */
  openApi(): Promise<Record<string, unknown>> {
    return this.send('GET', '/openapi.json');
  }

  readonly liveTokens = {
    /** A short-lived token for the live WebSocket; with `userId` (admin keys), scoped to that user. */
    create: (body: LiveTokenBody = {}): Promise<LiveToken> => this.send('POST', '/v1/live/tokens', { body }),
  };

  /**
   * Live updates over one WebSocket (`GET /v1/live`), reconnecting with
   * exponential backoff and jitter, subscriptions renewed on every new
   * connection, and gaps healed: when a `seq` is missing (or after a
   * reconnect) the subscription's REST view is fetched and emitted as a
   * `resync` message. Node 20 has no global WebSocket: pass one (`ws`'s).
   */
  live(options: LiveOptions = {}): LiveConnection {
    const token = options.token ?? (async () => (await this.liveTokens.create()).token);
    const resync =
      options.resync ??
      (this.options.apiKey
        ? async (name: string, params: SubscribeParams): Promise<Record<string, unknown>> => {
            const [kind, id] = splitSubscription(name);
            if (kind === 'user') return { metrics: await this.users.metrics(id) };
            return { leaderboard: await this.leaderboards.get(id, { limit: params.top ?? 10 }) };
          }
        : null);
    return new LiveConnection(this.base, token, resync, options);
  }

  // ---- Admin API ----

  readonly admin = {
    metrics: {
      ...collection<AdminMetric, CreateMetric, UpdateMetric>(this.send, '/admin/v1/metrics'),
      /** Up to 1,000 events, checked now and applied in the background (202 once queued). */
      batchEvents: (items: BatchEvent[]): Promise<BatchEventsResponse> => this.send('POST', '/admin/v1/metrics/events', { body: items }),
      /** Accepted batch items that could not be applied when their turn came. */
      rejected: {
        /** Newest first. */
        list: (query?: ListQuery): Promise<BatchRejection[]> => this.send('GET', '/admin/v1/metrics/events/rejected', { query }),
        get: (id: string): Promise<BatchRejection> => this.send('GET', path`/admin/v1/metrics/events/rejected/${id}`),
        delete: (ids: string[]): Promise<Deleted> => this.send('DELETE', '/admin/v1/metrics/events/rejected', { query: { ids } }),
      },
    },
    attributes: collection<AdminAttribute, CreateAttribute, UpdateAttribute>(this.send, '/admin/v1/attributes'),
    points: {
      ...collection<AdminPointsSystem, CreateSystem, PatchSystem, AdminPointsSystemWithItems>(this.send, '/admin/v1/points'),
      triggers: (systemId: string) =>
        collection<AdminPointsTrigger, CreateTrigger, PatchTrigger>(this.send, path`/admin/v1/points/${systemId}/triggers`),
      levels: (systemId: string) => collection<AdminPointsLevel, CreateLevel, PatchLevel>(this.send, path`/admin/v1/points/${systemId}/levels`),
      boosts: (systemId: string) => collection<AdminPointsBoost, CreateBoost, PatchBoost>(this.send, path`/admin/v1/points/${systemId}/boosts`),
    },
    achievements: collection<AdminAchievement, CreateAchievement, PatchAchievement>(this.send, '/admin/v1/achievements'),
    leaderboards: collection<AdminLeaderboard, CreateBoard, PatchBoard>(this.send, '/admin/v1/leaderboards'),
    /** Tenants are account-wide: Tenant-ID does not apply. */
    tenants: collection<AdminTenant, CreateTenant, UpdateTenant>(this.send, '/admin/v1/tenants'),
    streak: {
      get: (): Promise<StreakSettingsResponse> => this.send('GET', '/admin/v1/streak'),
      set: (settings: StreakSettings): Promise<StreakSettingsResponse> => this.send('PUT', '/admin/v1/streak', { body: settings }),
    },
    retention: {
      get: (): Promise<RetentionSettingsResponse> => this.send('GET', '/admin/v1/retention'),
      set: (settings: RetentionSettings): Promise<RetentionSettingsResponse> => this.send('PUT', '/admin/v1/retention', { body: settings }),
    },
    streaks: {
      freezes: (body: FreezesBody): Promise<FreezesResponse> => this.send('POST', '/admin/v1/streaks/freezes', { body }),
      pauses: (body: PausesBody): Promise<Created<AdminStreakPause>> => this.send('POST', '/admin/v1/streaks/pauses', { body }),
      deletePauses: (ids: string[]): Promise<Deleted> => this.send('DELETE', '/admin/v1/streaks/pauses', { query: { ids } }),
      restore: (body: RestoreBody): Promise<RestoreResponse> => this.send('POST', '/admin/v1/streaks/restore', { body }),
    },
    apiKeys: {
      /** The secrets are in this response only. */
      create: (items: CreateKey[]): Promise<Created<ApplicationKey>> => this.send('POST', '/admin/v1/application-api-keys', { body: items }),
      /** Set rate limits. */
      update: (items: UpdateKey[]): Promise<Updated<UpdatedKey>> => this.send('PATCH', '/admin/v1/application-api-keys', { body: items }),
      delete: (ids: string[]): Promise<Deleted> => this.send('DELETE', '/admin/v1/application-api-keys', { query: { ids } }),
    },
    /** A user's latest events from Postgres, newest first. */
    userEvents: (userId: string, query?: UserEventsQuery): Promise<AdminUserEvent[]> =>
      this.send('GET', path`/admin/v1/users/${userId}/events`, { query }),
    /** Figures over a range of UTC days (`from` to `to`, at most 400 days). */
    analytics: {
      events: (query: EventsAnalyticsQuery): Promise<EventsPerDay[]> => this.send('GET', '/admin/v1/analytics/events', { query }),
      points: (query: PointsAnalyticsQuery): Promise<PointsPerDay[]> => this.send('GET', '/admin/v1/analytics/points', { query }),
      activeUsers: (query: AnalyticsRange): Promise<ActiveUsersPerDay[]> => this.send('GET', '/admin/v1/analytics/active-users', { query }),
      streaks: (query: AnalyticsRange): Promise<StreakDistribution> => this.send('GET', '/admin/v1/analytics/streaks', { query }),
      achievements: (query: AnalyticsRange): Promise<AchievementCompletionRate[]> =>
        this.send('GET', '/admin/v1/analytics/achievements', { query }),
      /** Retention and engagement of the users whose first active local date is in the range, control against experiment. */
      experiment: (query: ExperimentQuery): Promise<ExperimentAnalytics> => this.send('GET', '/admin/v1/analytics/experiment', { query }),
      /** The runs of a leaderboard starting in the range. */
      leaderboardRuns: (key: string, query: AnalyticsRange): Promise<LeaderboardRunStats[]> =>
        this.send('GET', path`/admin/v1/analytics/leaderboards/${key}`, { query }),
    },
    /** Endpoints' secrets are in the create and rotateSecret responses only. */
    webhooks: {
      ...collection<AdminWebhook, WebhookFields, PatchWebhook, WebhookWithSecret>(this.send, '/admin/v1/webhooks'),
      rotateSecret: (id: string): Promise<RotatedSecret> => this.send('POST', path`/admin/v1/webhooks/${id}/rotate-secret`),
      /** Newest first. */
      deliveries: (id: string, query?: WebhookDeliveriesQuery): Promise<WebhookDelivery[]> =>
        this.send('GET', path`/admin/v1/webhooks/${id}/deliveries`, { query }),
      /** Send one delivery again, whatever its state, with a fresh retry budget. */
      redeliver: (deliveryId: string): Promise<WebhookDelivery> =>
        this.send('POST', path`/admin/v1/webhooks/deliveries/${deliveryId}/redeliver`),
      /** Send every dead delivery of an endpoint again. */
      redeliverDead: (id: string): Promise<Redelivered> => this.send('POST', path`/admin/v1/webhooks/${id}/redeliver`),
    },
    /** Change records Postgres refused for good, set aside by the flusher. */
    deadLetters: {
      /** Newest first. */
      list: (query?: ListQuery): Promise<DeadLetter[]> => this.send('GET', '/admin/v1/dead-letters', { query }),
      get: (id: string): Promise<DeadLetter> => this.send('GET', path`/admin/v1/dead-letters/${id}`),
      /** Write it again (after fixing the cause); rejects with 422 and the error if Postgres still refuses it. */
      replay: (id: string): Promise<DeadLetterReplayed> => this.send('POST', path`/admin/v1/dead-letters/${id}/replay`),
      /** Discard: the records are never written. */
      delete: (ids: string[]): Promise<Deleted> => this.send('DELETE', '/admin/v1/dead-letters', { query: { ids } }),
    },
    /** Privacy requests about one user. */
    users: {
      /** Erase the user and everything held about them; repeating it answers the same. */
      erase: (id: string): Promise<ErasedUser> => this.send('DELETE', path`/admin/v1/users/${id}`),
      /** Everything held about the user, as one document. */
      export: (id: string): Promise<UserExport> => this.send('GET', path`/admin/v1/users/${id}/export`),
    },
  };
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) q.append(name, v);
    else q.append(name, String(value));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

// ---- Live updates ----

/** The part of a WebSocket the client uses (the browser's, Node 22's global one, or `ws`'s). */
export interface WebSocketLike {
  /** 1 while open. */
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface LiveOptions {
  /** A WebSocket class; default the global one (browsers, Node 22+). */
  WebSocket?: WebSocketConstructor;
  /**
   * Where tokens come from, one per connection. Default: `POST /v1/live/tokens`
   * with this client's key. In a browser, ask your backend (which mints one,
   * for the signed-in user, with the admin key) and give the client no key.
   */
  token?: () => Promise<string>;
  /**
   * The REST view that heals a gap in a user's updates (a board's views are
   * whole: each heals its own). Default (with an API key): the user's
   * metrics, `GET /v1/users/{id}/metrics`. Without a key and without this,
   * the `resync` message carries no data: fetch what you show.
   */
  resync?: ((subscription: string, params: SubscribeParams) => Promise<Record<string, unknown>>) | null;
  /** First reconnect delay and the most it grows to (ms); default 500 and 30,000. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface SubscribeParams {
  /** Leaderboards: how many of the top (at most 100, default 10). */
  top?: number;
  /** Leaderboards: also the places around a user. */
  around?: LiveAround;
}

/** What a subscription's listener receives. */
export type LiveMessage =
  | LiveUserUpdate
  | LiveBoardUpdate
  | LiveBoardUnavailable
  /** After a gap or a reconnect: the REST view (fields as `resync` returned them). */
  | { type: 'resync'; subscription: string; [field: string]: unknown }
  /** The server refused the subscription (it stays registered until unsubscribed, and is tried again on reconnect). */
  | { type: 'error'; subscription: string; error: string };

export type LiveStatus = { state: 'open' } | { state: 'closed'; code: number; reason: string; retryInMs: number | null };

interface LiveSub {
  name: string;
  params: SubscribeParams;
  listener: (m: LiveMessage) => void;
  /** The last sequence number seen (null: not acknowledged on this connection yet). */
  seq: number | null;
  /** Acknowledged on some earlier connection: a new one may have missed changes. */
  known: boolean;
}

const isBoard = (sub: LiveSub) => sub.name.startsWith('leaderboard:');

function splitSubscription(name: string): [string, string] {
  const i = name.indexOf(':');
  return [name.slice(0, i), name.slice(i + 1)];
}

/** One live connection, kept open until `close()`. */
export class LiveConnection {
  private ws: WebSocketLike | null = null;
  private readonly subs = new Map<string, LiveSub>();
  private readonly statusListeners = new Set<(s: LiveStatus) => void>();
  private attempt = 0;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly WS: WebSocketConstructor;

  constructor(
    private readonly base: string,
    private readonly token: () => Promise<string>,
    private readonly resyncView: LiveOptions['resync'],
    private readonly options: LiveOptions,
  ) {
    const ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!ctor) throw new Error('No WebSocket available: pass options.WebSocket (e.g. the `ws` package on Node 20)');
    this.WS = ctor;
    void this.connect();
  }

  /** Subscribe (`user:<id>` or `leaderboard:<key>`); returns the unsubscribe function. */
  subscribe(name: string, listener: (m: LiveMessage) => void, params: SubscribeParams = {}): () => void {
    const sub: LiveSub = { name, params, listener, seq: null, known: false };
    this.subs.set(name, sub);
    this.sendSubscribe(sub);
    return () => {
      if (this.subs.get(name) !== sub) return;
      this.subs.delete(name);
      this.write({ unsubscribe: name });
    };
  }

  /** Told when the connection opens, and when it closes (with the delay before the next try). */
  onStatus(listener: (s: LiveStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close(1000, 'client closed');
    this.ws = null;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let token: string;
    try {
      token = await this.token();
    } catch {
      return this.retry(0, 'could not get a live token');
    }
    if (this.closed) return;
    const ws = new this.WS(`${this.base.replace(/^http/, 'ws')}/v1/live?token=${encodeURIComponent(token)}`);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      for (const sub of this.subs.values()) this.sendSubscribe(sub);
      this.emitStatus({ state: 'open' });
    };
    ws.onmessage = (ev) => this.receive(String(ev.data));
    ws.onerror = () => undefined; // onclose follows
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const sub of this.subs.values()) sub.seq = null;
      this.retry(ev.code, ev.reason);
    };
  }

  /** Exponential backoff with full jitter, so clients dropped together (a restart) do not return together. */
  private retry(code: number, reason: string): void {
    if (this.closed) return;
    const min = this.options.minDelayMs ?? 500;
    const max = this.options.maxDelayMs ?? 30_000;
    const delay = Math.round(Math.min(max, min * 2 ** this.attempt++) * (0.5 + Math.random() / 2));
    this.emitStatus({ state: 'closed', code, reason, retryInMs: delay });
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }

  private sendSubscribe(sub: LiveSub): void {
    this.write({ subscribe: sub.name, ...sub.params });
  }

  private write(msg: unknown): void {
    // Before the socket opens, nothing is sent: onopen subscribes everything.
    try {
      if (this.ws?.readyState === 1) this.ws.send(JSON.stringify(msg));
    } catch {
      /* closing: onclose reconnects */
    }
  }

  private receive(text: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof msg.subscribed === 'string') {
      const sub = this.subs.get(msg.subscribed);
      if (!sub) return;
      sub.seq = 0;
      // A user subscription renewed after a reconnect may have missed changes meanwhile (a board's current view follows by itself).
      if (sub.known && !isBoard(sub)) void this.resync(sub);
      sub.known = true;
      return;
    }
    if (typeof msg.error === 'string' && typeof msg.subscribe === 'string') {
      this.subs.get(msg.subscribe)?.listener({ type: 'error', subscription: msg.subscribe, error: msg.error });
      return;
    }
    if (typeof msg.subscription !== 'string' || typeof msg.seq !== 'number') return;
    const sub = this.subs.get(msg.subscription);
    if (!sub || sub.seq === null) return;
    const gap = msg.seq !== sub.seq + 1;
    sub.seq = msg.seq;
    sub.listener(msg as LiveMessage);
    // A board view is whole: it heals its own gap. A user's updates are not: fetch the REST view.
    if (gap && !isBoard(sub)) void this.resync(sub);
  }

  private async resync(sub: LiveSub): Promise<void> {
    if (!this.resyncView) {
      sub.listener({ type: 'resync', subscription: sub.name });
      return;
    }
    try {
      const view = await this.resyncView(sub.name, sub.params);
      if (this.subs.get(sub.name) === sub) sub.listener({ type: 'resync', subscription: sub.name, ...view });
    } catch {
      // The REST read failed: the next gap or reconnect tries again.
    }
  }

  private emitStatus(s: LiveStatus): void {
    for (const l of this.statusListeners) l(s);
  }
}
