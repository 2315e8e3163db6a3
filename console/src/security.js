// Admin keys (list, create, rotate, revoke, re-activate, delete) and the audit log, with its filters.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, p } from './api.js';

const when = (iso) => (iso ? iso.replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC') : 'never');

export function AdminKeys() {
  const [keys, setKeys] = useState(null);
  const [name, setName] = useState('');
  const [shown, setShown] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/admin/v1/admin-api-keys').then(setKeys, (e) => setError(e.message));
  useEffect(() => void load(), []);
  const run = async (fn) => {
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e.message);
    }
    await load();
  };
  const create = (e) => {
    e.preventDefault();
    run(async () => {
      const k = await api('POST', '/admin/v1/admin-api-keys', { body: { name } });
      setShown({ name: k.name, key: k.key });
      setName('');
    });
  };
  const rotate = (k) => run(async () => setShown({ name: k.name, key: (await api('POST', p`/admin/v1/admin-api-keys/${k.id}/rotate`)).key }));
  const setStatus = (k, status) => run(() => api('PATCH', p`/admin/v1/admin-api-keys/${k.id}`, { body: { status } }));
  const remove = (k) => confirm(`Delete the key "${k.name}" for good?`) && run(() => api('DELETE', p`/admin/v1/admin-api-keys/${k.id}`));
  return html`<section data-page="admin-keys"><h2>Admin keys</h2>
    <p class="muted">Keys of the whole instance (at most 10). A key is shown once, when made or rotated; only its hash is kept.
      ADMIN_API_KEY is managed by its variable. A key cannot act on itself, and the last active key stays.</p>
    <form class="form inline" data-form="admin-key" onSubmit=${create}>
      <label for="admin-key-name">New key named</label>
      <input id="admin-key-name" required maxlength="255" value=${name} onInput=${(e) => setName(e.target.value)} />
      <button type="submit">Create</button>
    </form>
    ${shown && html`<p class="notice">Key "${shown.name}", shown once: <code data-secret>${shown.key}</code></p>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${keys && html`<table data-resource="/admin/v1/admin-api-keys"><thead><tr>
        <th>Name</th><th>Prefix</th><th>Source</th><th>Status</th><th>Created</th><th>Last used</th><th></th></tr></thead>
      <tbody>${keys.map((k) => html`<tr data-key=${k.id}>
        <td>${k.name}</td><td><code>${k.prefix}</code></td><td>${k.source}</td><td>${k.status}</td>
        <td class="nowrap">${when(k.created)}</td><td class="nowrap">${when(k.lastUsed)}</td>
        <td class="row-actions">${k.source === 'environment' ? html`<span class="muted">set by ADMIN_API_KEY</span>` : html`
          <button class="link" onClick=${() => rotate(k)}>rotate</button>
          ${k.status === 'active'
            ? html`<button class="link danger" onClick=${() => setStatus(k, 'inactive')}>revoke</button>`
            : html`<button class="link" onClick=${() => setStatus(k, 'active')}>re-activate</button>`}
          <button class="link danger" onClick=${() => remove(k)}>delete</button>`}</td>
      </tr>`)}</tbody></table>`}
  </section>`;
}

const FILTERS = [
  ['tenant', 'Tenant (id or customerId)'], ['resource', 'Resource (e.g. metrics)'], ['keyId', 'Key id'], ['since', 'Since (ISO time)'], ['until', 'Until (ISO time)'],
];

function Changes({ changes }) {
  if (!changes) return null;
  return html`<details><summary>changes</summary><ul>${Object.entries(changes).flatMap(([id, fields]) =>
    Object.entries(fields).map(([f, c]) => html`<li><code>${id ? `${id}.` : ''}${f}</code>: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}</li>`))}</ul></details>`;
}

export function AuditLog() {
  const [filters, setFilters] = useState({});
  const [entries, setEntries] = useState([]);
  const [next, setNext] = useState(null);
  const [error, setError] = useState(null);
  const fetchPage = async (query, cursor) => {
    setError(null);
    try {
      const page = await api('GET', '/admin/v1/audit-log', { query: { ...query, limit: 50, cursor } });
      setEntries((old) => (cursor ? [...old, ...page.entries] : page.entries));
      setNext(page.nextCursor);
    } catch (e) {
      setError(e.message);
    }
  };
  useEffect(() => void fetchPage({}), []);
  return html`<section data-page="audit-log"><h2>Audit log</h2>
    <p class="muted">Every change made through the Admin API, newest first. Entries are never changed; old months are dropped past AUDIT_RETENTION_DAYS.</p>
    <form class="form" data-form="audit-filter" onSubmit=${(e) => (e.preventDefault(), fetchPage(filters))}>
      ${FILTERS.map(([k, label]) => html`<div class="field"><label for=${`audit-${k}`}>${label}</label>
        <input id=${`audit-${k}`} value=${filters[k] ?? ''} onInput=${(e) => setFilters({ ...filters, [k]: e.target.value })} /></div>`)}
      <div class="actions"><button type="submit">Filter</button></div>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table data-resource="/admin/v1/audit-log"><thead><tr><th>Time</th><th>Key</th><th>Action</th><th>Resource</th><th>Ids</th><th>Route</th><th>Tenant</th></tr></thead>
      <tbody>${entries.length === 0 ? html`<tr><td colspan="7" class="muted">No entries</td></tr>` : entries.map((e) => html`<tr>
        <td class="nowrap">${when(e.time)}</td><td><code>${e.keyPrefix}</code></td><td>${e.action}</td><td>${e.resource}</td>
        <td>${e.resourceIds.join(', ')}<${Changes} changes=${e.changes} /></td><td><code>${e.method} ${e.route}</code></td><td>${e.tenantId ?? '(instance)'}</td>
      </tr>`)}</tbody></table>
    ${next && html`<button onClick=${() => fetchPage(filters, next)}>Older entries</button>`}
  </section>`;
}
