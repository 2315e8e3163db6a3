// Configuration pages: one list-and-form page per Admin API collection, plus
// the few that are not plain collections (streak settings, application keys).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, listAll, p, writeOne } from './api.js';
import { Form } from './form.js';
import * as R from './resources.js';
import { Link } from './router.js';

const cell = (v) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Load something, and reload on demand: [data, error, reload]. */
export function useLoad(fn, deps) {
  const [state, setState] = useState({ data: null, error: null });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    fn().then((data) => live && setState({ data, error: null }), (err) => live && setState({ data: null, error: err.message }));
    return () => (live = false);
  }, [...deps, n]);
  return [state.data, state.error, () => setN((x) => x + 1)];
}

/** A secret shown once (webhook signing secret, application key). */
const Secret = ({ label, value }) => value && html`<p class="notice">${label} (shown once, copy it now): <code data-secret>${value}</code></p>`;

/**
 * List, create, edit and delete one collection (list and delete only without
 * `fields`). `actions(item, reload)` adds buttons to a row; `detail(item)`
 * renders below the table for the open row.
 */
export function ResourcePage({ spec, actions, detail }) {
  const [items, error, reload] = useLoad(() => listAll(spec.path), [spec.path]);
  const [editing, setEditing] = useState(null);
  const [open, setOpen] = useState(null);
  const [secret, setSecret] = useState(null);
  const [rowError, setRowError] = useState(null);
  const remove = async (item) => {
    if (!confirm(`Delete this ${spec.noun}?`)) return;
    try {
      const out = await api('DELETE', spec.path, { query: { ids: item.id } });
      if (out.issues?.length) throw new Error(out.issues[0].message);
      setRowError(null);
      reload();
    } catch (err) {
      setRowError(err.message);
    }
  };
  return html`<section class="resource" data-resource=${spec.path}>
    <h2>${spec.title}</h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${rowError && html`<p class="error" role="alert">${rowError}</p>`}
    <${Secret} label="Secret" value=${secret} />
    <table>
      <thead><tr>${spec.columns.map((c) => html`<th>${c}</th>`)}<th></th></tr></thead>
      <tbody>
        ${(items ?? []).map((item) => html`<tr data-id=${item.id}>
          ${spec.columns.map((c) => html`<td>${cell(item[c])}</td>`)}
          <td class="row-actions">
            ${detail && html`<button class="link" onClick=${() => setOpen(open?.id === item.id ? null : item)}>open</button>`}
            ${spec.fields && html`<button class="link" onClick=${() => setEditing(item)}>edit</button>`}
            <button class="link danger" onClick=${() => remove(item)}>delete</button>
            ${actions?.(item, reload, setRowError)}
          </td>
        </tr>`)}
        ${items?.length === 0 && html`<tr><td colspan=${spec.columns.length + 1} class="muted">No ${spec.noun}s yet.</td></tr>`}
      </tbody>
    </table>
    ${open && detail(open)}
    ${spec.fields && html`<${Form} key=${editing ? `edit-${editing.id}` : `new-${items?.length ?? 0}`} fields=${spec.fields} item=${editing}
      mode=${editing ? 'edit' : 'create'} idPrefix=${spec.noun.replace(/\W/g, '-')}
      title=${editing ? `Edit ${spec.noun}` : `New ${spec.noun}`} submitLabel=${editing ? 'Save' : 'Create'}
      submit=${(body) => writeOne(editing ? 'PATCH' : 'POST', spec.path, editing ? { id: editing.id, ...body } : body)}
      onDone=${(saved) => {
        setSecret(saved.secret ?? null);
        setEditing(null);
        reload();
      }} />`}
    ${editing && html`<button class="link" onClick=${() => setEditing(null)}>cancel editing</button>`}
  </section>`;
}

const act = (label, fn, reload, setError) => html`<button class="link" onClick=${async () => {
  try {
    await fn();
    setError(null);
    reload();
  } catch (err) {
    setError(err.message);
  }
}}>${label}</button>`;

export const Metrics = () => html`<${ResourcePage} spec=${R.metrics} />`;
export const Attributes = () => html`<${ResourcePage} spec=${R.attributes} />`;
export const Achievements = () => html`<${ResourcePage} spec=${R.achievements} />`;
export const Tenants = () => html`<${ResourcePage} spec=${R.tenants} />`;

export const Points = () => html`<${ResourcePage} spec=${R.points} detail=${(system) => html`<div class="nested" key=${system.id}>
  <h3>${system.name}</h3>
  <${ResourcePage} spec=${R.triggers(system.id)} />
  <${ResourcePage} spec=${R.levels(system.id)} />
  <${ResourcePage} spec=${R.boosts(system.id)} />
</div>`} />`;

/** State transitions are a PATCH of `status`; the API says which are allowed. */
export const Leaderboards = () => html`<${ResourcePage} spec=${R.leaderboards} actions=${(board, reload, setError) => html`
  ${R.BOARD_STATES.filter((s) => s !== board.status && s !== 'scheduled').map((s) =>
    act(s === 'active' ? 'activate' : s === 'finished' ? 'finish' : 'deactivate', () => writeOne('PATCH', R.leaderboards.path, { id: board.id, status: s }), reload, setError))}
  <${Link} class="link" href=${`/console/live/${encodeURIComponent(board.key)}`}>watch</${Link}>`} />`;

/** A league's tiers with their cohorts in the current run; a cohort's rankings on demand. */
function LeagueRun({ league }) {
  const [cohort, setCohort] = useState(null);
  const [error, setError] = useState(null);
  const show = (id) => api('GET', p`/v1/leagues/${league.key}/cohorts/${id}`).then((c) => (setCohort(c), setError(null)), (err) => setError(err.message));
  const run = league.currentRun;
  return html`<section class="detail" data-league=${league.key}>
    <h3>Run ${run.start} to ${run.end}</h3>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <table>
      <thead><tr><th>tier</th><th>key</th><th>promote</th><th>relegate</th><th>cohorts</th></tr></thead>
      <tbody>${league.tiers.map((t, i) => html`<tr data-tier=${t.key}>
        <td>${t.name}</td><td>${t.key}</td><td>${t.promote}</td><td>${t.relegate}</td>
        <td>${run.cohorts[i]?.cohorts ?? 0} ${Array.from({ length: Math.min(run.cohorts[i]?.cohorts ?? 0, 20) }, (_, n) =>
          html`<button class="link" onClick=${() => show(`${run.run}-${i}-${n + 1}`)}>#${n + 1}</button>`)}</td>
      </tr>`)}</tbody>
    </table>
    ${cohort && html`<table data-cohort=${cohort.id}>
      <thead><tr><th>rank</th><th>user</th><th>value</th></tr></thead>
      <tbody>${cohort.rankings.map((r) => html`<tr><td>${r.rank}</td><td>${r.userName ?? r.userId}</td><td>${r.value}</td></tr>`)}</tbody>
    </table>`}
  </section>`;
}

export const Leagues = () => html`<${ResourcePage} spec=${R.leagues} detail=${(league) => html`<${LeagueRun} key=${league.id} league=${league} />`} />`;

function Deliveries({ hook }) {
  const [list, error, reload] = useLoad(() => api('GET', p`/admin/v1/webhooks/${hook.id}/deliveries`, { query: { limit: 20 } }), [hook.id]);
  const [msg, setMsg] = useState(null);
  return html`<div class="nested">
    <h3>Deliveries to ${hook.url}</h3>
    ${(error || msg) && html`<p class="error" role="alert">${error || msg}</p>`}
    ${act('redeliver all dead', () => api('POST', p`/admin/v1/webhooks/${hook.id}/redeliver`), reload, setMsg)}
    <table><thead><tr><th>created</th><th>type</th><th>status</th><th>attempts</th><th>last status</th><th>last error</th><th></th></tr></thead>
      <tbody>${(list ?? []).map((d) => html`<tr>
        <td>${d.created}</td><td>${d.type}</td><td>${d.status}</td><td>${d.attempts}</td><td>${cell(d.lastStatus)}</td><td>${cell(d.lastError)}</td>
        <td>${act('redeliver', () => api('POST', p`/admin/v1/webhooks/deliveries/${d.id}/redeliver`), reload, setMsg)}</td>
      </tr>`)}
      ${list?.length === 0 && html`<tr><td colspan="7" class="muted">No deliveries.</td></tr>`}</tbody>
    </table>
  </div>`;
}

export function Webhooks() {
  const [secret, setSecret] = useState(null);
  return html`<${Secret} label="New signing secret" value=${secret} />
    <${ResourcePage} spec=${R.webhooks} detail=${(hook) => html`<${Deliveries} key=${hook.id} hook=${hook} />`}
      actions=${(hook, reload, setError) => act('rotate secret', async () => setSecret((await api('POST', p`/admin/v1/webhooks/${hook.id}/rotate-secret`)).secret), reload, setError)} />`;
}

export function Streak() {
  const [settings, error, reload] = useLoad(() => api('GET', '/admin/v1/streak'), []);
  const [saved, setSaved] = useState(false);
  return html`<section><h2>Streak settings</h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${saved && html`<p class="notice">Saved.</p>`}
    ${settings && html`<${Form} key=${JSON.stringify(settings)} fields=${R.streak} item=${settings} mode="create" idPrefix="streak"
      submit=${(body) => api('PUT', '/admin/v1/streak', { body: { metrics: [], ...body } })} onDone=${() => (setSaved(true), reload())} />`}
  </section>`;
}

/** There is no list of application keys in the API: this page shows the ones made here, and revokes or limits any by id. */
export function Keys() {
  const [made, setMade] = useState([]);
  const idField = [{ k: 'id', label: 'Key ID', required: true }];
  return html`<section><h2>Application keys</h2>
    <p class="muted">Each key acts for one user only. The secret is shown once; only its hash is stored.</p>
    <${Form} fields=${R.applicationKey} mode="create" idPrefix="key" title="New application key" submitLabel="Create"
      submit=${(body) => writeOne('POST', '/admin/v1/application-api-keys', body)} onDone=${(k) => setMade([k, ...made])} />
    ${made.map((k) => html`<p class="notice">Key for ${k.userId} (id <code>${k.id}</code>), shown once: <code data-secret>${k.key}</code></p>`)}
    <${Form} fields=${[...idField, ...R.applicationKey.slice(1)]} mode="create" idPrefix="limit" title="Set a key's rate limit" submitLabel="Set"
      submit=${(body) => writeOne('PATCH', '/admin/v1/application-api-keys', { id: body.id, rateLimit: body.rateLimit ?? null })} />
    <${Form} fields=${idField} mode="create" idPrefix="revoke" title="Revoke a key" submitLabel="Revoke"
      submit=${async (body) => {
        const out = await api('DELETE', '/admin/v1/application-api-keys', { query: { ids: body.id } });
        if (out.issues?.length) throw new Error(out.issues[0].message);
      }} />
  </section>`;
}

/** Change records Postgres refused for good: replay one once the cause is fixed, or discard it. */
export const DeadLetters = () => html`<${ResourcePage} spec=${R.deadLetters}
  actions=${(letter, reload, setError) => act('replay', () => api('POST', p`/admin/v1/dead-letters/${letter.id}/replay`), reload, setError)} />`;
