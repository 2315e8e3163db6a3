import type { MessageTemplateBody, MessageType } from '../wire/admin';

/**
 * The shipped templates: what a type sends until the tenant sets its own,
 * so turning a type on sends something sensible at once. The variables are
 * listed in docs/messages.md.
 */
const footer = `<p style="color:#777;font-size:12px"><a href="{{ unsubscribeUrl }}">Unsubscribe</a> · <a href="{{ preferencesUrl }}">Email preferences</a></p>`;
const textFooter = `\n\nUnsubscribe: {{ unsubscribeUrl }}\nPreferences: {{ preferencesUrl }}`;

export const DEFAULT_TEMPLATES: Record<MessageType, MessageTemplateBody> = {
  achievement_completed: {
    email: {
      subject: 'You unlocked {{ achievement.name }}',
      html: `<p>Hi {{ user.name | default: "there" }},</p><p>You just unlocked <strong>{{ achievement.name }}</strong>.{% if achievement.description %} {{ achievement.description }}{% endif %}</p>${footer}`,
      text: `Hi {{ user.name | default: "there" }},\n\nYou just unlocked {{ achievement.name }}.{% if achievement.description %} {{ achievement.description }}{% endif %}${textFooter}`,
    },
    push: { title: 'Achievement unlocked', body: 'You unlocked {{ achievement.name }}.' },
  },
  recap: {
    email: {
      subject: 'Your recap for {{ recap.periodStart }} to {{ recap.periodEnd }}',
      html: `<p>Hi {{ user.name | default: "there" }},</p><p>From {{ recap.periodStart }} to {{ recap.periodEnd }} you logged {{ recap.events }} events, earned {{ recap.points }} points and {{ recap.achievements }} achievements.{% if streak.length > 0 %} Your streak is {{ streak.length }} long.{% endif %}</p>${footer}`,
      text: `Hi {{ user.name | default: "there" }},\n\nFrom {{ recap.periodStart }} to {{ recap.periodEnd }} you logged {{ recap.events }} events, earned {{ recap.points }} points and {{ recap.achievements }} achievements.{% if streak.length > 0 %} Your streak is {{ streak.length }} long.{% endif %}${textFooter}`,
    },
    push: { title: 'Your recap', body: '{{ recap.events }} events and {{ recap.points }} points since {{ recap.periodStart }}.' },
  },
  reactivation: {
    email: {
      subject: 'We miss you, {{ user.name | default: "friend" }}',
      html: `<p>Hi {{ user.name | default: "there" }},</p><p>It has been {{ reactivation.daysSinceLastActive }} days since we last saw you. Come back and pick up where you left off.</p>${footer}`,
      text: `Hi {{ user.name | default: "there" }},\n\nIt has been {{ reactivation.daysSinceLastActive }} days since we last saw you. Come back and pick up where you left off.${textFooter}`,
    },
    push: { title: 'We miss you', body: 'It has been {{ reactivation.daysSinceLastActive }} days. Come back!' },
  },
  streak_reminder: {
    email: {
      subject: 'Keep your {{ streak.length }}-{{ streak.frequency | replace: "daily", "day" | replace: "weekly", "week" | replace: "monthly", "month" }} streak alive',
      html: `<p>Hi {{ user.name | default: "there" }},</p><p>Your streak of {{ streak.length }} ends with {{ streak.periodEnd }} unless you act before then.</p>${footer}`,
      text: `Hi {{ user.name | default: "there" }},\n\nYour streak of {{ streak.length }} ends with {{ streak.periodEnd }} unless you act before then.${textFooter}`,
    },
    push: { title: 'Your streak is at risk', body: 'Act today to keep your streak of {{ streak.length }}.' },
  },
};
