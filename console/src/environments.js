// Environments: compare two tenants' configurations and copy the differences from one to the other,
// through the same plan and apply as `laurel config plan|push` (docs/environments.md).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, listAll, session } from './api.js';

const show = (v) => (v === undefined ? '(absent)' : JSON.stringify(v, null, 1));

/** A plan as rows: what the target has now beside what the source would give it. */
function rows(plan) {
  const out = [];
  for (const c of plan.creations) out.push({ change: 'create', kind: c.kind, key: c.key, field: '', target: undefined, source: c.after });
  for (const u of plan.updates) for (const f of u.changes) out.push({ change: 'update', kind: u.kind, key: u.key, field: f.field, target: f.before, source: f.after });
  for (const d of plan.deletions) out.push({ change: 'delete', kind: d.kind, key: d.key, field: '', target: d.before, source: undefined });
  return out;
}

function TenantSelect({ id, label, tenants, value, onChange }) {
  return html`<label class="field" for=${id}>${label}
    <select id=${id} value=${value} onChange=${(e) => onChange(e.target.value)}>
      <option value="">Default</option>
      ${tenants.filter((t) => t.customerId).map((t) => html`<option value=${t.customerId}>${t.name} (${t.customerId})</option>`)}
    </select></label>`;
}

export function Environments() {
  const [tenants, setTenants] = useState([]);
  const [from, setFrom] = useState(session.tenant());
  const [to, setTo] = useState('');
  const [prune, setPrune] = useState(false);
  const [state, setState] = useState({ plan: null, doc: null, error: null, problems: [], notice: null });

  useEffect(() => {
    listAll('/admin/v1/tenants').then(setTenants, () => setTenants([]));
  }, []);

  // Only the latest comparison is shown: an earlier one answering late is dropped.
  const latest = useRef(0);
  const compare = async (notice = null) => {
    const mine = ++latest.current;
    const display = (next) => mine === latest.current && setState(next);
    try {
      const doc = await api('GET', '/admin/v1/config', { tenant: from });
      const plan = await api('POST', '/admin/v1/config/plan', { tenant: to, body: doc, query: { prune: prune ? 'true' : '' } });
      display({ plan, doc, error: null, problems: [], notice });
    } catch (err) {
      display({ plan: null, doc: null, error: err.message, problems: err.body?.problems ?? [], notice: null });
    }
  };
  useEffect(() => {
    compare();
  }, [from, to, prune]);

  const copy = async () => {
    try {
      // If-Match: the target as compared; a change there since is refused (412) rather than overwritten.
      const applied = await api('PUT', '/admin/v1/config', {
        tenant: to, body: state.doc, query: { prune: prune ? 'true' : '' }, headers: { 'If-Match': String(state.plan.version) },
      });
      await compare(`Copied: ${rows(applied).length} change(s), now version ${applied.version}.`);
    } catch (err) {
      setState({ ...state, error: err.message, problems: err.body?.problems ?? [], notice: null });
    }
  };

  const list = state.plan ? rows(state.plan) : [];
  const name = (v) => (v ? v : 'Default');
  return html`<section data-page="environments">
    <h2>Environments</h2>
    <p class="muted">Compare two tenants' configurations and copy what differs from the source to the target, as one new config version.</p>
    <div class="inline">
      <${TenantSelect} id="env-from" label="Source" tenants=${tenants} value=${from} onChange=${setFrom} />
      <${TenantSelect} id="env-to" label="Target" tenants=${tenants} value=${to} onChange=${setTo} />
      <label class="choice"><input id="env-prune" type="checkbox" checked=${prune} onChange=${(e) => setPrune(e.target.checked)} /> Delete what the source lacks</label>
    </div>
    ${state.error && html`<div class="error" role="alert">${state.error}
      ${state.problems.length > 0 && html`<ul>${state.problems.map((p) => html`<li><code>${p.path}</code> ${p.message}</li>`)}</ul>`}</div>`}
    ${state.notice && html`<p class="notice" role="status">${state.notice}</p>`}
    ${state.plan && html`<table data-plan>
      <thead><tr><th>change</th><th>kind</th><th>key</th><th>field</th><th>in ${name(to)} (target)</th><th>in ${name(from)} (source)</th></tr></thead>
      <tbody>${list.length === 0
        ? html`<tr><td colspan="6" class="muted">No differences.</td></tr>`
        : list.map((r) => html`<tr data-change=${r.change} data-kind=${r.kind} data-key=${r.key}>
            <td>${r.change}</td><td>${r.kind}</td><td>${r.key}</td><td><code>${r.field}</code></td>
            <td><pre>${show(r.target)}</pre></td><td><pre>${show(r.source)}</pre></td></tr>`)}</tbody>
    </table>
    <div class="actions"><button id="env-apply" disabled=${list.length === 0 || from === to} onClick=${copy}>Copy to ${name(to)}</button></div>`}
  </section>`;
}
