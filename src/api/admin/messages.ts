import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { check, jsonBody } from '../../http/body';
import { invalid, notFound } from '../../errors';
import { reply, Request, Route } from '../../http/server';
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
import { page } from './batch';
import { MESSAGE_CHANNELS, saveChannel, saveTemplate } from './writes/messages';
import type {
  ChannelTestBody, ChannelTestResult, MessageChannel, MessageStatus, MessageTemplate, MessageTemplateBody, MessageType, PreviewBody,
  RemovedMessageSetting,
} from '../../wire/admin';

const REDACTED = '[redacted]';

const validators: { [K in MessageChannel]: (x: unknown) => typia.IValidation<ChannelSettingsOf[K]> } = {
  email: typia.createValidate<ChannelSettingsOf['email']>(),
  apns: typia.createValidate<ChannelSettingsOf['apns']>(),
  fcm: typia.createValidate<ChannelSettingsOf['fcm']>(),
  expo: typia.createValidate<ChannelSettingsOf['expo']>(),
};
const validateTemplate = typia.createValidate<MessageTemplateBody>();
const validateTest = typia.createValidate<ChannelTestBody>();
const validatePreview = typia.createValidate<PreviewBody>();
const isType = typia.createIs<MessageType>();
const isChannel = typia.createIs<MessageChannel>();
const isStatus = typia.createIs<MessageStatus>();

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

/**
 * The messages Laurel sends itself (docs/messages.md): channels and their
 * test sends, templates and previews, and the delivery log.
 */
export function messageRoutes(ctx: Ctx, links: UnsubscribeLinks): Route[] {
  const channelRoutes = (kind: MessageChannel): Route[] => {
    const path = `/admin/v1/channels/${kind}`;
    const configured = async (req: Request) => {
      const tenant = await identifyAdmin(ctx, req);
      const s = await getChannel(ctx.db, ctx.secrets, tenant.id, kind);
      if (!s) throw notFound(`The ${kind} channel is not configured`);
      return { tenant, s };
    };
    return [
      {
        method: 'put', pattern: path, body: true,
        handler: async (req) => {
          const tenant = await identifyAdmin(ctx, req);
          const s = check(validators[kind] as (x: unknown) => typia.IValidation<ChannelSettingsOf[MessageChannel]>, jsonBody(req));
          const problem = await saveChannel(ctx, ctx.db, tenant.id, kind, s);
          if (problem) throw invalid(problem);
          return reply(200, redactChannel(kind, s));
        },
      },
      { method: 'get', pattern: path, handler: async (req) => reply(200, redactChannel(kind, (await configured(req)).s)) },
      {
        method: 'del', pattern: path,
        handler: async (req) => {
          const tenant = await identifyAdmin(ctx, req);
          if (!(await deleteChannel(ctx.db, tenant.id, kind))) throw notFound(`The ${kind} channel is not configured`);
          return reply(200, { removed: kind } satisfies RemovedMessageSetting);
        },
      },
      {
        method: 'post', pattern: `${path}/test`, body: true,
        handler: async (req) => {
          const { tenant, s } = await configured(req);
          const { userId } = check(validateTest, jsonBody(req));
          const fields = await userFields(ctx, tenant, userId);
          // Any configured channel counts here (a test may come before turning the channel on).
          const all = new Set(Object.keys(await listChannels(ctx.db, ctx.secrets, tenant.id)) as MessageChannel[]);
          const email = fields.get(EMAIL_FIELD);
          const to = kind === 'email' ? (email ? [email] : []) : recipientsOf(kind, fields, all);
          if (to.length === 0) throw invalid(kind === 'email' ? `User "${userId}" has no email address` : `User "${userId}" has no device token for ${kind}`);
          const out = await sendOn(kind, s, to, TEST_MESSAGE, null, ctx.clock.now());
          await removeTokens(ctx, tenant, userId, out.deadTokens);
          return reply(200, { status: out.status, response: out.response } satisfies ChannelTestResult);
        },
      },
    ];
  };

  const typeOf = (req: Request): MessageType => {
    const t = req.params[0]!;
    if (!isType(t)) throw notFound(`Unknown message type "${t}" (one of ${NOTIFICATION_TYPES.join(', ')})`);
    return t;
  };
  const templateJson = (type: MessageType, own: MessageTemplateBody | null): MessageTemplate => ({ type, default: !own, ...templateOf(own, type) });

  return [
    ...MESSAGE_CHANNELS.flatMap(channelRoutes),
    {
      method: 'get', pattern: '/admin/v1/templates',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const own = await listTemplates(ctx.db, tenant.id);
        return reply(200, NOTIFICATION_TYPES.map((t) => templateJson(t, own.get(t) ?? null)));
      },
    },
    {
      method: 'put', pattern: '/admin/v1/templates/:type', body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const type = typeOf(req);
        const t = check(validateTemplate, jsonBody(req));
        const body = await saveTemplate(ctx, ctx.db, tenant.id, type, t);
        if (typeof body === 'string') throw invalid(body);
        return reply(200, templateJson(type, body));
      },
    },
    {
      method: 'del', pattern: '/admin/v1/templates/:type',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const type = typeOf(req);
        if (!(await deleteTemplate(ctx.db, tenant.id, type))) throw notFound(`No template of the tenant's own for ${type}`);
        return reply(200, { removed: type } satisfies RemovedMessageSetting);
      },
    },
    {
      method: 'post', pattern: '/admin/v1/templates/:type/preview', body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const type = typeOf(req);
        const { userId, template: draft } = check(validatePreview, jsonBody(req));
        const problem = draft ? templateProblem(draft) : null;
        if (problem) throw invalid(problem);
        const fields = await userFields(ctx, tenant, userId);
        const cfg = await ctx.configs.get(tenant);
        try {
          const vars = await messageVariables(ctx, links, tenant, cfg, userId, fields, type, null);
          return reply(200, await renderMessage(draft ?? templateOf(await getTemplate(ctx.db, tenant.id, type), type), vars));
        } catch (err) {
          throw invalid(`The template cannot be rendered for this user: ${(err as Error).message}`);
        }
      },
    },
    {
      method: 'get', pattern: '/admin/v1/messages',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const q = req.query;
        const type = q.get('type');
        const channel = q.get('channel');
        const status = q.get('status');
        const userId = q.get('userId');
        if (userId !== null && !storable(userId)) throw invalid(`userId ${UNSTORABLE_RULE}`);
        if (type !== null && !isType(type)) throw invalid(`type must be one of ${NOTIFICATION_TYPES.join(', ')}`);
        if (channel !== null && !isChannel(channel)) throw invalid(`channel must be one of ${MESSAGE_CHANNELS.join(', ')}`);
        if (status !== null && !isStatus(status)) throw invalid('status must be queued, sent, retrying, failed or suppressed');
        const { limit, skip } = page(q);
        const rows = await listMessages(ctx.db, tenant.id, { userId, type, channel, status }, limit, skip);
        return reply(200, rows.map(messageJson));
      },
    },
  ];
}
