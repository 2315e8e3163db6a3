import typia from 'typia';
import type { Ctx } from '../../context';
import { invalid, notFound } from '../../errors';
import { storable, UNSTORABLE_RULE } from '../../http/text';
import { NOTIFICATION_TYPES } from '../../domain/retention';
import { recipientsOf } from '../../domain/messages';
import { EMAIL_FIELD } from '../../domain/user-hash';
import { userHash } from '../../engine';
import { ChannelSettingsOf, deleteChannel, deleteTemplate, getChannel, getTemplate, listChannels, listMessages, listTemplates, messageJson } from '../../store/messages';
import { renderMessage, templateOf, templateProblem } from '../../messages/render';
import { messageVariables } from '../../messages/variables';
import { removeTokens, sendOn } from '../../messages/sender';
import type { UnsubscribeLinks } from '../../messages/unsubscribe';
import type { Tenant } from '../../store/tenants';
import { io, ok, route, type Io } from '../define';
import { MESSAGE_CHANNELS, saveChannel, saveTemplate } from './writes/messages';
import type {
  ApnsChannelSettings, ChannelTestBody, ChannelTestResult, EmailChannelSettings, ExpoChannelSettings, FcmChannelSettings, Message, MessageChannel,
  MessagesQuery, MessageTemplate, MessageTemplateBody, MessageType, PreviewBody, RemovedMessageSetting, RenderedMessage,
} from '../../wire/admin';

const REDACTED = '[redacted]';

const isType = typia.createIs<MessageType>();

/** A channel's settings as answered: every credential replaced (the password in an SMTP URL, keys, tokens). */
export function redactChannel<K extends MessageChannel>(kind: K, s: ChannelSettingsOf[K]): ChannelSettingsOf[K] {
  switch (kind) {
    case 'email': {
      const e = s as ChannelSettingsOf['email'];
      const u = new URL(e.smtpUrl);
      const auth = u.username ? `${u.username}${u.password ? `:${REDACTED}` : ''}@` : u.password ? `:${REDACTED}@` : '';
      const path = u.pathname && u.pathname !== '/' ? u.pathname : '';
      return { ...e, smtpUrl: `${u.protocol}//${auth}${u.host}${path}` } as ChannelSettingsOf[K];
    }
    case 'apns':
      return { ...(s as ChannelSettingsOf['apns']), signingKey: REDACTED } as ChannelSettingsOf[K];
    case 'fcm': {
      const f = s as ChannelSettingsOf['fcm'];
      const sa = { ...f.serviceAccount, private_key: REDACTED };
      if ('private_key_id' in sa) sa.private_key_id = REDACTED;
      return { ...f, serviceAccount: sa } as ChannelSettingsOf[K];
    }
    default: {
      const x = s as ChannelSettingsOf['expo'];
      return (x.accessToken ? { ...x, accessToken: REDACTED } : x) as ChannelSettingsOf[K];
    }
  }
}

/** A user's hash, or 404. */
async function userFields(ctx: Ctx, tenant: Tenant, userId: string): Promise<Map<string, string>> {
  const fields = await userHash(ctx.redis, ctx.keys.tenant(tenant.slot), userId);
  if (!fields) throw notFound(`User "${userId}" not found`);
  return fields;
}

const TEST_MESSAGE = {
  email: {
    subject: 'Test message from Laurel',
    html: '<p>This is a test message from Laurel: this channel works.</p>',
    text: 'This is a test message from Laurel: this channel works.',
  },
  push: { title: 'Test message from Laurel', body: 'This channel works.' },
};

const admin = 'admin' as const;
const tag = 'Admin: messages';

/** Each channel: what it is (in the summary) and its settings, as taken and as answered (credentials redacted). */
const CHANNELS: { [K in MessageChannel]: { what: string; settings: Io<ChannelSettingsOf[K]> } } = {
  email: { what: 'Email over SMTP', settings: io(typia.createValidate<EmailChannelSettings>(), typia.json.schema<EmailChannelSettings>()) },
  apns: { what: "Apple's push service (APNs), token-based", settings: io(typia.createValidate<ApnsChannelSettings>(), typia.json.schema<ApnsChannelSettings>()) },
  fcm: { what: 'Firebase Cloud Messaging (HTTP v1)', settings: io(typia.createValidate<FcmChannelSettings>(), typia.json.schema<FcmChannelSettings>()) },
  expo: { what: "Expo's push service", settings: io(typia.createValidate<ExpoChannelSettings>(), typia.json.schema<ExpoChannelSettings>()) },
};

/**
 * The messages Laurel sends itself (docs/messages.md): channels and their
 * test sends, templates and previews, and the delivery log.
 */
export function messageRoutes(ctx: Ctx, links: UnsubscribeLinks) {
  const removed = { 200: { description: 'Removed', schema: typia.json.schema<RemovedMessageSetting>() } };

  const channelRoutes = <K extends MessageChannel>(kind: K) => {
    const path: string = `/admin/v1/channels/${kind}`;
    const { what, settings } = CHANNELS[kind];
    const configured = async (tenant: Tenant) => {
      const s = await getChannel(ctx.db, ctx.secrets, tenant.id, kind);
      if (!s) throw notFound(`The ${kind} channel is not configured`);
      return s;
    };
    return [
      route({
        method: 'put', path, operationId: `admin_channels_${kind}_set`, tag, auth: admin,
        summary: `Configure the ${kind} channel: ${what}`,
        description: 'Credentials are encrypted at rest and never answered back: the response has them redacted.',
        body: settings,
        responses: { 200: { description: 'The settings as saved, credentials redacted', schema: settings.schema } },
        handler: async ({ tenant, body }) => {
          const problem = await saveChannel(ctx, ctx.db, tenant.id, kind, body);
          if (problem) throw invalid(problem);
          return ok(redactChannel(kind, body));
        },
      }),
      route({
        method: 'get', path, operationId: `admin_channels_${kind}_get`, tag, auth: admin,
        summary: `The ${kind} channel's settings, credentials redacted`,
        responses: { 200: { description: 'The settings (404 when not configured)', schema: settings.schema } },
        handler: async ({ tenant }) => ok(redactChannel(kind, await configured(tenant))),
      }),
      route({
        method: 'del', path, operationId: `admin_channels_${kind}_delete`, tag, auth: admin,
        summary: `Remove the ${kind} channel`,
        responses: removed,
        handler: async ({ tenant }) => {
          if (!(await deleteChannel(ctx.db, tenant.id, kind))) throw notFound(`The ${kind} channel is not configured`);
          return ok({ removed: kind });
        },
      }),
      route({
        method: 'post', path: `${path}/test`, operationId: `admin_channels_${kind}_test`, tag, auth: admin,
        summary: `Send a test message on the ${kind} channel to a user now`,
        description: "Sent to the user's email address or their device tokens for this provider, whatever their preferences; the answer is the provider's.",
        body: io(typia.createValidate<ChannelTestBody>(), typia.json.schema<ChannelTestBody>()),
        responses: { 200: { description: "The provider's outcome", schema: typia.json.schema<ChannelTestResult>() } },
        handler: async ({ tenant, body: { userId } }) => {
          const s = await configured(tenant);
          const fields = await userFields(ctx, tenant, userId);
          // Any configured channel counts here (a test may come before turning the channel on).
          const all = new Set(Object.keys(await listChannels(ctx.db, ctx.secrets, tenant.id)) as MessageChannel[]);
          const email = fields.get(EMAIL_FIELD);
          const to = kind === 'email' ? (email ? [email] : []) : recipientsOf(kind, fields, all);
          if (to.length === 0) throw invalid(kind === 'email' ? `User "${userId}" has no email address` : `User "${userId}" has no device token for ${kind}`);
          const out = await sendOn(kind, s, to, TEST_MESSAGE, null, ctx.clock.now());
          await removeTokens(ctx, tenant, userId, out.deadTokens);
          return ok({ status: out.status, response: out.response });
        },
      }),
    ];
  };

  const typeOf = (t: string): MessageType => {
    if (!isType(t)) throw notFound(`Unknown message type "${t}" (one of ${NOTIFICATION_TYPES.join(', ')})`);
    return t;
  };
  const templateJson = (type: MessageType, own: MessageTemplateBody | null): MessageTemplate => ({ type, default: !own, ...templateOf(own, type) });

  return [
    ...MESSAGE_CHANNELS.flatMap(channelRoutes),
    route({
      method: 'get', path: '/admin/v1/templates', operationId: 'admin_templates_list', tag, auth: admin,
      summary: 'The template of each notification type (the shipped default for types without one)',
      responses: { 200: { description: 'All four types', schema: typia.json.schema<MessageTemplate[]>() } },
      handler: async ({ tenant }) => {
        const own = await listTemplates(ctx.db, tenant.id);
        return ok(NOTIFICATION_TYPES.map((t) => templateJson(t, own.get(t) ?? null)));
      },
    }),
    route({
      method: 'put', path: '/admin/v1/templates/:type', operationId: 'admin_templates_set', tag, auth: admin,
      summary: "Set a type's template (Liquid)",
      description: 'Checked when saved: a template that does not parse is refused with 422. Output in the HTML part is escaped.',
      body: io(typia.createValidate<MessageTemplateBody>(), typia.json.schema<MessageTemplateBody>()),
      responses: { 200: { description: 'The template as saved', schema: typia.json.schema<MessageTemplate>() } },
      handler: async ({ tenant, params, body }) => {
        const type = typeOf(params.type);
        const saved = await saveTemplate(ctx, ctx.db, tenant.id, type, body);
        if (typeof saved === 'string') throw invalid(saved);
        return ok(templateJson(type, saved));
      },
    }),
    route({
      method: 'del', path: '/admin/v1/templates/:type', operationId: 'admin_templates_delete', tag, auth: admin,
      summary: "Remove a type's template: the shipped default applies again",
      responses: removed,
      handler: async ({ tenant, params }) => {
        const type = typeOf(params.type);
        if (!(await deleteTemplate(ctx.db, tenant.id, type))) throw notFound(`No template of the tenant's own for ${type}`);
        return ok({ removed: type });
      },
    }),
    route({
      method: 'post', path: '/admin/v1/templates/:type/preview', operationId: 'admin_templates_preview', tag, auth: admin,
      summary: "Render a type's template for a user, without sending it",
      description: 'With `template`, that draft is rendered instead of the saved template (nothing is saved).',
      body: io(typia.createValidate<PreviewBody>(), typia.json.schema<PreviewBody>()),
      responses: { 200: { description: 'Every part, rendered', schema: typia.json.schema<RenderedMessage>() } },
      handler: async ({ tenant, params, body: { userId, template: draft } }) => {
        const type = typeOf(params.type);
        const problem = draft ? templateProblem(draft) : null;
        if (problem) throw invalid(problem);
        const fields = await userFields(ctx, tenant, userId);
        const cfg = await ctx.configs.get(tenant);
        try {
          const vars = await messageVariables(ctx, links, tenant, cfg, userId, fields, type, null);
          return ok(await renderMessage(draft ?? templateOf(await getTemplate(ctx.db, tenant.id, type), type), vars));
        } catch (err) {
          throw invalid(`The template cannot be rendered for this user: ${(err as Error).message}`);
        }
      },
    }),
    route({
      method: 'get', path: '/admin/v1/messages', operationId: 'admin_messages_list', tag, auth: admin,
      summary: 'The delivery log: messages sent, queued, retrying, failed or suppressed',
      query: io(typia.http.createValidateQuery<MessagesQuery>(), typia.json.schema<MessagesQuery>()),
      responses: { 200: { description: 'A page of messages, newest first', schema: typia.json.schema<Message[]>() } },
      handler: async ({ tenant, query: { userId, type, channel, status, limit = 10, skip = 0 } }) => {
        if (userId !== undefined && !storable(userId)) throw invalid(`userId ${UNSTORABLE_RULE}`);
        const rows = await listMessages(ctx.db, tenant.id, { userId, type, channel, status }, limit, skip);
        return ok(rows.map(messageJson));
      },
    }),
  ];
}
