import { Liquid } from 'liquidjs';
import type { MessageTemplateBody, MessageType, RenderedMessage } from '../wire/admin';
import { DEFAULT_TEMPLATES } from './defaults';

/**
 * Templates are Liquid, run by liquidjs in a sandbox: no file system (an
 * include or layout finds nothing: the template map is empty), only the
 * variables given and their own properties (no prototype, so no way to
 * `constructor` or `process`), unknown variables and filters refused, and
 * limits on parse size, render time and memory. The HTML part escapes every
 * output; subject, text and push parts are plain text.
 */
const common = {
  templates: {},
  strictFilters: true,
  strictVariables: true,
  lenientIf: true,
  ownPropertyOnly: true,
  parseLimit: 400_000,
  renderLimit: 1_000,
  memoryLimit: 10_000_000,
};
const plain = new Liquid(common);
const html = new Liquid({ ...common, outputEscape: 'escape' });

/** Why a template cannot be parsed, or null. */
export function templateProblem(t: MessageTemplateBody): string | null {
  const parts: [string, Liquid, string | undefined][] = [
    ['email.subject', plain, t.email.subject], ['email.html', html, t.email.html], ['email.text', plain, t.email.text],
    ['push.title', plain, t.push.title], ['push.body', plain, t.push.body],
  ];
  for (const [name, engine, source] of parts) {
    if (source === undefined) continue;
    try {
      engine.parse(source);
    } catch (err) {
      return `${name}: ${(err as Error).message}`;
    }
  }
  return null;
}

/** A template for a type: the tenant's own, else the shipped default. */
export const templateOf = (own: MessageTemplateBody | null, type: MessageType): MessageTemplateBody => own ?? DEFAULT_TEMPLATES[type];

/** Every part rendered; the text part, when the template has none, is the HTML's text. */
export async function renderMessage(t: MessageTemplateBody, vars: Record<string, unknown>): Promise<RenderedMessage> {
  const [subject, body, title, pushBody] = await Promise.all([
    plain.parseAndRender(t.email.subject, vars),
    html.parseAndRender(t.email.html, vars),
    plain.parseAndRender(t.push.title, vars),
    plain.parseAndRender(t.push.body, vars),
  ]);
  const text = t.email.text !== undefined ? await plain.parseAndRender(t.email.text, vars) : textOf(body);
  return { email: { subject: oneLine(subject), html: body, text }, push: { title: oneLine(title), body: pushBody.trim() } };
}

/** A subject or title is one line (a newline there would end a mail header). */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A plain-text reading of rendered HTML, for mail clients that show no HTML. */
function textOf(h: string): string {
  return h
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|h\d|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}
