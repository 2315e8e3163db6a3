/** The webhook event types, named and shaped as Trophy's. */
export const WEBHOOK_EVENT_TYPES = [
  'achievement.completed',
  'streak.started',
  'streak.extended',
  'streak.lost',
  'streak.freeze_consumed',
  'streak.freeze_earned',
  'points.changed',
  'points.level_changed',
  'points.boost_started',
  'points.boost_finished',
  'leaderboard.started',
  'leaderboard.changed',
  'leaderboard.rank_changed',
  'leaderboard.finished',
  'league.promoted',
  'league.relegated',
  'league.finished',
  'emails.achievement_due',
  'emails.recap_due',
  'emails.reactivation_due',
  'emails.streak_reminder_due',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One event to report: the same id and body go to every endpoint subscribed to its type. */
export interface WebhookEvent {
  /** Derived from what happened, so writing the same event twice finds the same id. */
  id: string;
  type: WebhookEventType;
  /** The JSON body, serialized once. */
  payload: string;
  /** When to send it (ms); later than now for coalesced events. */
  due: number;
  /** Whether a later event with the same id replaces the body while it is unsent (snapshots). */
  coalesce?: boolean;
}
