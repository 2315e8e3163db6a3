import { CONTROL_FIELD, SUBSCRIBED_FIELD, LAST_ACTIVE_FIELD, STREAK_PREF_FIELD, prefField } from './user-hash';
import type { NotificationChannel, NotificationPreferences } from '../wire/app';
import type { RetentionSettings, RetentionSettingsResponse } from '../wire/admin';
import { FREQ_CODE, periodDates, periodIndexes, StreakConfig, weekOffset } from './streaks';
import { dateFromDay, dayNumber, DEFAULT_TIME_ZONE, localHour, localDate, recapPeriod, zonedMs } from './time';

/**
 * The retention layer's rules: who is in the control group, which channels a
 * user wants for each notification type, and when each email-due webhook is
 * due. The scheduler (src/scheduler/retention.ts), the event path and the
 * webhook deriver all ask here.
 */
export type RetentionConfig = RetentionSettingsResponse;
export type NotificationType = keyof Required<NotificationPreferences>;
export const NOTIFICATION_TYPES: NotificationType[] = ['achievement_completed', 'recap', 'reactivation', 'streak_reminder'];

export const RETENTION_DEFAULTS: RetentionConfig = {
  defaultTimeZone: DEFAULT_TIME_ZONE,
  controlRatio: 0,
  streakCustomization: false,
  notificationDefaults: { achievement_completed: ['email'], recap: ['email'], reactivation: ['email'], streak_reminder: ['email'] },
  achievementEmails: { enabled: false },
  recapEmails: { enabled: false, frequency: 'weekly' },
  // Trophy's timeline.
  reactivationEmails: { enabled: false, days: [3, 5, 7, 14, 30] },
  streakReminderEmails: { enabled: false, dailyHoursBeforeEnd: 4, weeklyDay: 'friday', weeklyHour: 9, monthlyDay: 25, monthlyHour: 9 },
};

/** A PUT body with every omitted field at its default. */
export function retentionFrom(b: RetentionSettings): RetentionConfig {
  const d = RETENTION_DEFAULTS;
  return {
    defaultTimeZone: b.defaultTimeZone ?? d.defaultTimeZone,
    controlRatio: b.controlRatio ?? d.controlRatio,
    streakCustomization: b.streakCustomization ?? d.streakCustomization,
    notificationDefaults: { ...d.notificationDefaults, ...b.notificationDefaults },
    achievementEmails: { ...d.achievementEmails, ...b.achievementEmails },
    recapEmails: { ...d.recapEmails, ...b.recapEmails },
    reactivationEmails: { ...d.reactivationEmails, ...b.reactivationEmails },
    streakReminderEmails: { ...d.streakReminderEmails, ...b.streakReminderEmails },
  };
}

export const RETENTION_FIELDS = [CONTROL_FIELD, LAST_ACTIVE_FIELD, STREAK_PREF_FIELD, ...NOTIFICATION_TYPES.map(prefField)];

export const inControl = (fields: Map<string, string>) => fields.get(CONTROL_FIELD) === '1';

/** The channels a user gets a type on: their own choice, else the tenant's default. */
export function channelsOf(cfg: RetentionConfig, fields: Map<string, string>, type: NotificationType): NotificationChannel[] {
  const own = fields.get(prefField(type));
  if (own === undefined) return [...cfg.notificationDefaults[type]];
  return own === '' ? [] : (own.split(',') as NotificationChannel[]);
}

/**
 * Whether an email-due webhook of this type may go to the user: not in the
 * control group, and some channel chosen (email only while subscribed to emails).
 */
export function wantsNotice(cfg: RetentionConfig, fields: Map<string, string>, type: NotificationType): boolean {
  if (inControl(fields)) return false;
  const channels = channelsOf(cfg, fields, type);
  return channels.some((c) => c === 'push' || fields.get(SUBSCRIBED_FIELD) !== '0');
}

/** Achievement emails: between 5 and 9 PM on the day of completion, else 5 PM the next day (user's zone). */
export function achievementDueAt(at: number, zone: string): number {
  const hour = localHour(at, zone);
  const date = localDate(at, zone);
  if (hour < 17) return zonedMs(date, 17, zone);
  if (hour < 21) return at;
  return zonedMs(dateFromDay(dayNumber(date)! + 1), 17, zone);
}

/** When the reminder for streak period `idx` is due (user's zone). */
export function reminderAt(cfg: RetentionConfig, sk: StreakConfig, idx: number, zone: string): number {
  const r = cfg.streakReminderEmails;
  const f = FREQ_CODE[sk.frequency];
  const { start, end } = periodDates(f, idx, sk.weekStart);
  if (f === 'd') return zonedMs(start, 24 - r.dailyHoursBeforeEnd, zone);
  if (f === 'w') {
    // The chosen weekday within this streak week.
    const offset = (weekOffset(r.weeklyDay) - weekOffset(sk.weekStart) + 7) % 7;
    return zonedMs(dateFromDay(dayNumber(start)! + offset), r.weeklyHour, zone);
  }
  const day = Math.min(r.monthlyDay, Number(end.slice(8)));
  return zonedMs(`${start.slice(0, 8)}${String(day).padStart(2, '0')}`, r.monthlyHour, zone);
}

/** When streak period `idx` ends (the next one's local midnight). */
export function periodEndsAt(sk: StreakConfig, idx: number, zone: string): number {
  const { end } = periodDates(FREQ_CODE[sk.frequency], idx, sk.weekStart);
  return zonedMs(dateFromDay(dayNumber(end)! + 1), 0, zone);
}

/** The recap period holding a local date, as dates, and when it ends. */
export function recapOf(cfg: RetentionConfig, date: string, zone: string) {
  const p = recapPeriod(dayNumber(date)!, cfg.recapEmails.frequency);
  return { start: dateFromDay(p.start), end: dateFromDay(p.next - 1), endsAt: zonedMs(dateFromDay(p.next), 0, zone) };
}

/**
 * Reactivation message k (0-based) is due once `days[k]` whole local days have
 * passed without activity after the last active date: at the start of the day after.
 */
export function reactivationDueAt(cfg: RetentionConfig, lastActive: string, k: number, zone: string): number {
  return zonedMs(dateFromDay(dayNumber(lastActive)! + cfg.reactivationEmails.days[k]! + 1), 0, zone);
}

/** Whether anything is scheduled per user (the due set is kept). Achievement emails need no schedule. */
export function schedules(cfg: RetentionConfig, sk: StreakConfig | null): boolean {
  return cfg.recapEmails.enabled || cfg.reactivationEmails.enabled || (cfg.streakReminderEmails.enabled && !!sk?.enabled);
}

const argCache = new Map<string, string>();

/**
 * The event script's due-time argument: 'base,r0,r1' where base is the
 * earliest of the next recap and the first reactivation message after an
 * event today, r0 and r1 the streak reminders of the current and next
 * streak period ('' when reminders are off); '' when nothing is scheduled.
 * The script adds the user to the due set at base or the reminder that
 * applies (it knows whether the streak was extended). Cached per date and
 * zone: the same few are asked all day.
 */
export function eventDueArg(ver: string, cfg: RetentionConfig | null, sk: StreakConfig | null, date: string, zone: string): string {
  if (!cfg || !schedules(cfg, sk)) return '';
  const key = `${ver}|${zone}|${date}`;
  let arg = argCache.get(key);
  if (arg !== undefined) return arg;
  let base = Infinity;
  if (cfg.reactivationEmails.enabled) base = Math.min(base, reactivationDueAt(cfg, date, 0, zone));
  if (cfg.recapEmails.enabled) base = Math.min(base, recapOf(cfg, date, zone).endsAt);
  let r0 = '';
  let r1 = '';
  if (cfg.streakReminderEmails.enabled && sk?.enabled) {
    const streakIdx = periodIndexes(date, sk.weekStart)[FREQ_CODE[sk.frequency]];
    r0 = String(reminderAt(cfg, sk, streakIdx, zone));
    r1 = String(reminderAt(cfg, sk, streakIdx + 1, zone));
  }
  arg = `${base === Infinity ? '' : base},${r0},${r1}`;
  if (argCache.size >= 4096) argCache.clear();
  argCache.set(key, arg);
  return arg;
}

/** Deterministic hash signature of the settings that decide who is scheduled (a change refills the due set). */
export function retentionSignature(cfg: RetentionConfig | null, sk: StreakConfig | null): string {
  if (!cfg || !schedules(cfg, sk)) return '';
  return JSON.stringify([cfg.recapEmails, cfg.reactivationEmails, cfg.streakReminderEmails, sk?.frequency, sk?.weekStart, cfg.defaultTimeZone]);
}
