// Messages Laurel sends: channels (credentials write-only), templates with a
// live preview, and the delivery log (docs/messages.md).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, p } from './api.js';

const TYPES = ['achievement_completed', 'recap', 'reactivation', 'streak_reminder'];

/** What each channel's PUT takes, as a starting point for the JSON field. */
const EXAMPLES = {
  email: { smtpUrl: 'smtp://user:password@smtp.example.com:587', from: { email: 'hello@example.com', name: 'Example' }, status: 'active' },
  apns: { teamId: 'TEAMID', keyId: 'KEYID', bundleId: 'com.example.app', signingKey: '-----BEGIN PRIVATE KEY-----\n…', environment: 'production' },
  fcm: { serviceAccount: { project_id: '…', client_email: '…', private_key: '…', token_uri: 'https://oauth2.googleapis.com/token' } },
  expo: { accessToken: '' },
};

function Channel({ kind }) {
  const [current, setCurrent] = useState(undefined);
  const [text, setText] = useState('');
  const [userId, setUserId] = useState('');
  const [msg, setMsg] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api('GET', `/admin/v1/channels/${kind}`).then(setCurrent, (e) => (e.status === 404 ? setCurrent(null) : setError(e.message)));
  useEffect(() => void load(), [kind]);
  const run = (fn) => async (e) => {
    e?.preventDefault();
    setError(null);
    setMsg(null);
    try {
      await fn();
    } catch (err) {
      setError(err.message);
    }
  };
  const save = run(async () => {
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error('The settings are not valid JSON');
    }
    setCurrent(await api('PUT', `/admin/v1/channels/${kind}`, { body }));
    setText('');
    setMsg('Saved.');
  });
  const remove = run(async () => {
    if (!confirm(`Remove the ${kind} channel?`)) return;
    await api('DELETE', `/admin/v1/channels/${kind}`);
    setCurrent(null);
  });
  const test = run(async () => {
    const out = await api('POST', `/admin/v1/channels/${kind}/test`, { body: { userId } });
    setMsg(`Test: ${out.status} (${out.response})`);
  });
  return html`<section class="channel" data-channel=${kind}><h3>${kind}</h3>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${msg && html`<p class="notice" role="status">${msg}</p>`}
    ${current === null && html`<p class="muted">Not configured.</p>`}
    ${current && html`<pre>${JSON.stringify(current, null, 2)}</pre>`}
    <form class="form" onSubmit=${save}>
      <div class="field"><label for=${`channel-${kind}`}>${current ? 'Replace the settings (JSON; credentials are never shown again)' : 'Settings (JSON)'}</label>
        <textarea id=${`channel-${kind}`} rows="6" required placeholder=${JSON.stringify(EXAMPLES[kind], null, 2)} value=${text} onInput=${(e) => setText(e.target.value)} /></div>
      <div class="actions"><button type="submit">Save</button>
        ${current && html`<button type="button" class="danger" onClick=${remove}>Remove</button>`}</div>
    </form>
    ${current && html`<form class="form inline" onSubmit=${test}>
      <label for=${`test-${kind}`}>Send a test to user</label>
      <input id=${`test-${kind}`} required value=${userId} onInput=${(e) => setUserId(e.target.value)} />
      <button type="submit">Send test</button></form>`}
  </section>`;
}

export const Channels = () => html`<section><h2>Message channels</h2>
  <p class="muted">Where Laurel sends retention messages. Credentials are encrypted at rest and never shown again.</p>
  ${['email', 'apns', 'fcm', 'expo'].map((k) => html`<${Channel} key=${k} kind=${k} />`)}
</section>`;

/** @type {[field: string, label: string, rows: number][]} */
const PARTS = [['email.subject', 'Email subject', 1], ['email.html', 'Email HTML', 8], ['email.text', 'Email text (empty: from the HTML)', 4], ['push.title', 'Push title', 1], ['push.body', 'Push body', 2]];
const get = (t, k) => k.split('.').reduce((o, x) => o?.[x], t) ?? '';

export function Templates() {
  const [type, setType] = useState(TYPES[0]);
  const [all, setAll] = useState(null);
  const [draft, setDraft] = useState(null);
  const [userId, setUserId] = useState('');
  const [preview, setPreview] = useState(null);
  const [error, setError] = useState(null);
  const [msg, setMsg] = useState(null);
  const reload = () => api('GET', '/admin/v1/templates').then(setAll, (e) => setError(e.message));
  useEffect(() => void reload(), []);
  useEffect(() => {
    const t = all?.find((x) => x.type === type);
    if (t) setDraft({ email: { subject: t.email.subject, html: t.email.html, text: t.email.text ?? '' }, push: { ...t.push } });
  }, [all, type]);
  const body = () => ({ email: { subject: draft.email.subject, html: draft.email.html, ...(draft.email.text ? { text: draft.email.text } : {}) }, push: draft.push });
  // The live preview: the draft rendered for the chosen user, a moment after each change.
  useEffect(() => {
    if (!draft || !userId) return setPreview(null);
    const timer = setTimeout(() => {
      api('POST', p`/admin/v1/templates/${type}/preview`, { body: { userId, template: body() } }).then(
        (r) => setPreview({ ok: r }), (e) => setPreview({ error: e.message }));
    }, 300);
    return () => clearTimeout(timer);
  }, [draft, userId, type]);
  const edit = (k, v) => {
    const [a, b] = k.split('.');
    setDraft({ ...draft, [a]: { ...draft[a], [b]: v } });
  };
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await api('PUT', p`/admin/v1/templates/${type}`, { body: body() });
      setMsg('Saved.');
      reload();
    } catch (err) {
      setError(err.message);
    }
  };
  const current = all?.find((x) => x.type === type);
  return html`<section><h2>Message templates</h2>
    <p class="muted">Liquid; values in the HTML part are escaped. Variables: see docs/messages.md.</p>
    <label for="template-type">Type</label>
    <select id="template-type" value=${type} onChange=${(e) => (setType(e.target.value), setMsg(null))}>${TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select>
    ${current?.default && html`<span class="muted"> (the shipped default)</span>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${msg && html`<p class="notice" role="status">${msg}</p>`}
    ${draft && html`<div class="editor"><form class="form" onSubmit=${save}>
      ${PARTS.map(([k, label, rows]) => html`<div class="field"><label for=${`tpl-${k.replace('.', '-')}`}>${label}</label>
        <textarea id=${`tpl-${k.replace('.', '-')}`} rows=${rows} value=${get(draft, k)} onInput=${(e) => edit(k, e.target.value)} /></div>`)}
      <div class="actions"><button type="submit">Save</button></div>
    </form>
    <div class="preview"><label for="preview-user">Preview for user</label>
      <input id="preview-user" value=${userId} onInput=${(e) => setUserId(e.target.value)} />
      ${preview?.error && html`<p class="error" role="alert">${preview.error}</p>`}
      ${preview?.ok && html`<div id="preview"><p><strong>${preview.ok.email.subject}</strong></p><pre>${preview.ok.email.html}</pre><pre>${preview.ok.email.text}</pre>
        <p><strong>${preview.ok.push.title}</strong>: ${preview.ok.push.body}</p></div>`}
    </div></div>`}
  </section>`;
}

export function MessageLog() {
  const [filters, setFilters] = useState({ userId: '', type: '', channel: '', status: '' });
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const [more, setMore] = useState(false);
  const load = async (skip) => {
    try {
      const page = await api('GET', '/admin/v1/messages', { query: { ...filters, limit: 50, skip } });
      setRows(skip ? [...rows, ...page] : page);
      setMore(page.length === 50);
      setError(null);
    } catch (err) {
      setError(err.message);
    }
  };
  useEffect(() => void load(0), [filters]);
  const pick = (k, options) => html`<label>${k} <select id=${`log-${k}`} value=${filters[k]} onChange=${(e) => setFilters({ ...filters, [k]: e.target.value })}>
    <option value="">any</option>${options.map((o) => html`<option value=${o}>${o}</option>`)}</select></label>`;
  return html`<section><h2>Message log</h2>
    <form class="form inline" onSubmit=${(e) => (e.preventDefault(), setFilters({ ...filters, userId: e.target.elements.userId.value }))}>
      <label>user <input name="userId" id="log-user" /></label><button type="submit">Filter</button>
      ${pick('type', TYPES)}${pick('channel', ['email', 'apns', 'fcm', 'expo'])}${pick('status', ['queued', 'sent', 'retrying', 'failed', 'suppressed'])}
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table><thead><tr><th>created</th><th>user</th><th>type</th><th>channel</th><th>status</th><th>attempts</th><th>last response</th></tr></thead>
      <tbody>${rows.map((m) => html`<tr data-id=${m.id}><td>${m.createdAt}</td><td>${m.userId}</td><td>${m.type}</td><td>${m.channel}</td><td>${m.status}</td>
        <td>${m.attempts}</td><td>${m.lastResponse ?? ''}</td></tr>`)}
      ${rows.length === 0 && html`<tr><td colspan="7" class="muted">No messages.</td></tr>`}</tbody></table>
    ${more && html`<button class="link" onClick=${() => load(rows.length)}>more</button>`}
  </section>`;
}
