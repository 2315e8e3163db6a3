import typia from 'typia';
import type {
  ApnsChannelSettings, ChannelTestBody, ChannelTestResult, EmailChannelSettings, ExpoChannelSettings, FcmChannelSettings, Message, MessageChannel,
  MessagesQuery, MessageTemplate, MessageTemplateBody, PreviewBody, RemovedMessageSetting, RenderedMessage,
} from '../../wire/admin';
import type { Operation, Unit } from './document';

const admin = 'admin' as const;
const tag = 'Admin: messages';

const CHANNELS: { kind: MessageChannel; what: string; schema: Unit }[] = [
  { kind: 'email', what: 'Email over SMTP', schema: typia.json.schema<EmailChannelSettings>() },
  { kind: 'apns', what: "Apple's push service (APNs), token-based", schema: typia.json.schema<ApnsChannelSettings>() },
  { kind: 'fcm', what: 'Firebase Cloud Messaging (HTTP v1)', schema: typia.json.schema<FcmChannelSettings>() },
  { kind: 'expo', what: "Expo's push service", schema: typia.json.schema<ExpoChannelSettings>() },
];

/** The messages Laurel sends itself (docs/messages.md), and the unsubscribe links in its emails. */
export const messageOperations: Operation[] = [
  ...CHANNELS.flatMap(({ kind, what, schema }): Operation[] => [
    {
      method: 'put', path: `/admin/v1/channels/${kind}`, operationId: `admin_channels_${kind}_set`, tag, auth: admin,
      summary: `Configure the ${kind} channel: ${what}`,
      description: 'Credentials are encrypted at rest and never answered back: the response has them redacted.',
      body: schema,
      responses: { 200: { description: 'The settings as saved, credentials redacted', schema } },
    },
    {
      method: 'get', path: `/admin/v1/channels/${kind}`, operationId: `admin_channels_${kind}_get`, tag, auth: admin,
      summary: `The ${kind} channel's settings, credentials redacted`,
      responses: { 200: { description: 'The settings (404 when not configured)', schema } },
    },
    {
      method: 'del', path: `/admin/v1/channels/${kind}`, operationId: `admin_channels_${kind}_delete`, tag, auth: admin,
      summary: `Remove the ${kind} channel`,
      responses: { 200: { description: 'Removed', schema: typia.json.schema<RemovedMessageSetting>() } },
    },
    {
      method: 'post', path: `/admin/v1/channels/${kind}/test`, operationId: `admin_channels_${kind}_test`, tag, auth: admin,
      summary: `Send a test message on the ${kind} channel to a user now`,
      description: "Sent to the user's email address or their device tokens for this provider, whatever their preferences; the answer is the provider's.",
      body: typia.json.schema<ChannelTestBody>(),
      responses: { 200: { description: "The provider's outcome", schema: typia.json.schema<ChannelTestResult>() } },
    },
  ]),
  {
    method: 'get', path: '/admin/v1/templates', operationId: 'admin_templates_list', tag, auth: admin,
    summary: 'The template of each notification type (the shipped default for types without one)',
    responses: { 200: { description: 'All four types', schema: typia.json.schema<MessageTemplate[]>() } },
  },
  {
    method: 'put', path: '/admin/v1/templates/:type', operationId: 'admin_templates_set', tag, auth: admin,
    summary: "Set a type's template (Liquid)",
    description: 'Checked when saved: a template that does not parse is refused with 422. Output in the HTML part is escaped.',
    body: typia.json.schema<MessageTemplateBody>(),
    responses: { 200: { description: 'The template as saved', schema: typia.json.schema<MessageTemplate>() } },
  },
  {
    method: 'del', path: '/admin/v1/templates/:type', operationId: 'admin_templates_delete', tag, auth: admin,
    summary: "Remove a type's template: the shipped default applies again",
    responses: { 200: { description: 'Removed', schema: typia.json.schema<RemovedMessageSetting>() } },
  },
  {
    method: 'post', path: '/admin/v1/templates/:type/preview', operationId: 'admin_templates_preview', tag, auth: admin,
    summary: "Render a type's template for a user, without sending it",
    description: 'With `template`, that draft is rendered instead of the saved template (nothing is saved).',
    body: typia.json.schema<PreviewBody>(),
    responses: { 200: { description: 'Every part, rendered', schema: typia.json.schema<RenderedMessage>() } },
  },
  {
    method: 'get', path: '/admin/v1/messages', operationId: 'admin_messages_list', tag, auth: admin,
    summary: 'The delivery log: messages sent, queued, retrying, failed or suppressed',
    query: typia.json.schema<MessagesQuery>(),
    responses: { 200: { description: 'A page of messages, newest first', schema: typia.json.schema<Message[]>() } },
  },
  {
    method: 'get', path: '/u/:token', operationId: 'unsubscribe_page', tag: 'Unsubscribe', auth: 'none',
    summary: "An email's preferences link: a page where the user switches each type on or off (HTML)",
    responses: { 200: { description: 'The page (HTML); 404 for a link not valid' } },
  },
  {
    method: 'post', path: '/u/:token', operationId: 'unsubscribe_one_click', tag: 'Unsubscribe', auth: 'none',
    summary: "One-click unsubscribe (RFC 8058): no more emails of the link's type to this user",
    description: 'Push and the other types are unchanged. The body (`List-Unsubscribe=One-Click`) is not needed.',
    responses: { 200: { description: 'Unsubscribed (an HTML page)' } },
  },
  {
    method: 'post', path: '/u/:token/preferences', operationId: 'unsubscribe_preferences_save', tag: 'Unsubscribe', auth: 'none',
    summary: "The preferences page's form (application/x-www-form-urlencoded: each type's name once per channel chosen)",
    responses: { 200: { description: 'The page again, saved (HTML)' } },
  },
];
