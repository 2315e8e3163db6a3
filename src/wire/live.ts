import type { tags } from 'typia';
import type { IsoDateTime, Ranking } from './app';

// Live updates (`GET /v1/live`, a WebSocket) on the wire: the token request,
// the messages a client sends and those it receives. The server validates
// client messages with these types and /openapi.json describes them under
// `x-laurel-live`. (Type-only: nothing here exists at run time.)

type Id = string & tags.MinLength<1> & tags.MaxLength<255>;
type Seq = number & tags.Type<'uint32'>;

/** `POST /v1/live/tokens` (the body is optional). */
export interface LiveTokenBody {
  /** Admin keys only: a token that acts as an application key of this user would (its own user, and boards). */
  userId?: Id;
}

export interface LiveToken {
  /** Pass as `?token=` on `GET /v1/live`. Short-lived and good for nothing else. */
  token: string;
  expiresAt: IsoDateTime;
}

/** Around a user on a board: `n` places above and `n` below. */
export interface LiveAround {
  userId: Id;
  n: number & tags.Type<'uint32'> & tags.Maximum<100>;
}

/**
 * Subscribe to `user:<id>` (every change to that user) or `leaderboard:<key>`
 * (its current run's view, sent on subscribing and whenever it changes, at
 * most LIVE_BOARD_RATE times a second).
 */
export interface LiveSubscribe {
  subscribe: string & tags.MinLength<1> & tags.MaxLength<300>;
  /** Leaderboards: how many of the top to send (default 10). */
  top?: number & tags.Type<'uint32'> & tags.Maximum<100>;
  /** Leaderboards: also the places around a user. */
  around?: LiveAround;
}

export interface LiveUnsubscribe {
  unsubscribe: string & tags.MinLength<1> & tags.MaxLength<300>;
}

/** What a client sends: one JSON object per text message. */
export type LiveClientMessage = LiveSubscribe | LiveUnsubscribe;

/** The answer to a subscribe; updates of that subscription follow from `seq` 1. */
export interface LiveSubscribed {
  subscribed: string;
  seq: 0;
}

export interface LiveUnsubscribed {
  unsubscribed: string;
}

/** A refused message (the connection stays open); `subscribe` or `unsubscribe` names what was refused. */
export interface LiveRefused {
  error: string;
  subscribe?: string;
  unsubscribe?: string;
}

/** Kinds of change sent to a `user:` subscription; they follow the webhook event types of the same name, plus `metric.changed`. */
export type LiveUserUpdateType =
  | 'metric.changed'
  | 'points.changed'
  | 'points.level_changed'
  | 'achievement.completed'
  | 'streak.started'
  | 'streak.extended'
  | 'streak.lost'
  | 'streak.freeze_consumed'
  | 'leaderboard.rank_changed'
  /** Laurel's leagues (docs/leagues.md): `league: {key, name}` and the event response's entry (tier, cohortId, rank, previousRank, value, zone). */
  | 'league.rank_changed';

/**
 * One change to a subscribed user. `seq` counts this subscription's updates
 * one by one: a missing number means updates were dropped (a slow reader, or
 * the server lost its feed for a moment), and one REST read resyncs. The
 * other fields are those of the webhook event of the same type (without
 * `user`), or for `metric.changed`: `eventId`, `metricId`, `metricKey`,
 * `value` (the event's) and `total`.
 */
export interface LiveUserUpdate {
  subscription: string;
  seq: Seq;
  type: LiveUserUpdateType;
  [field: string]: unknown;
}

/** A leaderboard's view: the board as `GET /v1/leaderboards/{key}` shows it (top `top`), and the places around a user when asked. */
export interface LiveBoardUpdate {
  subscription: string;
  seq: Seq;
  type: 'leaderboard';
  leaderboard: {
    id: string;
    key: string;
    name: string;
    status: string;
    rankings: Ranking[];
    [field: string]: unknown;
  };
  /** Present when `around` was asked: empty while the user is not on the board. */
  around?: Ranking[];
}

/** The watched board is gone (deleted, deactivated, broken down); the subscription stays, and views resume if it comes back. */
export interface LiveBoardUnavailable {
  subscription: string;
  seq: Seq;
  type: 'leaderboard.unavailable';
  error: string;
}

/** What the server sends: one JSON object per text message. */
export type LiveServerMessage = LiveSubscribed | LiveUnsubscribed | LiveRefused | LiveUserUpdate | LiveBoardUpdate | LiveBoardUnavailable;
