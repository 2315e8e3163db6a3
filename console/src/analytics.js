// Charts over a chosen range, from the Admin API's analytics endpoints.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, listAll } from './api.js';
import { DailyChart } from './chart.js';
import { useLoad } from './configure.js';

const today = () => new Date().toISOString().slice(0, 10);
const daysBefore = (date, n) => new Date(Date.parse(`${date}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

/** Rows of one kind grouped into chart series: one per `key` value, named by `names`. */
function seriesOf(rows, key, value, names) {
  const by = new Map();
  for (const r of rows) {
    const id = r[key];
    if (!by.has(id)) by.set(id, { label: names[id] ?? id, byDate: {} });
    by.get(id).byDate[r.date] = r[value];
  }
  return [...by.values()];
}

async function load(range, metricId) {
  const q = { from: range.from, to: range.to };
  const [metrics, systems, events, points, active, streaks, achievements] = await Promise.all([
    listAll('/admin/v1/metrics'),
    listAll('/admin/v1/points'),
    api('GET', '/admin/v1/analytics/events', { query: { ...q, metricId } }),
    api('GET', '/admin/v1/analytics/points', { query: q }),
    api('GET', '/admin/v1/analytics/active-users', { query: q }),
    api('GET', '/admin/v1/analytics/streaks', { query: q }),
    api('GET', '/admin/v1/analytics/achievements', { query: q }),
  ]);
  return { metrics, systems, events, points, active, streaks, achievements };
}

const sum = (rows, k) => rows.reduce((s, r) => s + r[k], 0);

export function Analytics() {
  const [draft, setDraft] = useState(() => ({ from: daysBefore(today(), 29), to: today(), metricId: '' }));
  const [range, setRange] = useState(draft);
  const [d, error] = useLoad(() => load(range, range.metricId || undefined), [range.from, range.to, range.metricId]);
  const metricNames = Object.fromEntries((d?.metrics ?? []).map((m) => [m.id, m.name]));
  const systemNames = Object.fromEntries((d?.systems ?? []).map((s) => [s.id, s.name]));
  const maxStreakUsers = Math.max(1, ...(d?.streaks.lengths ?? []).map((l) => l.users));
  return html`<section class="analytics"><h2>Analytics</h2>
    <form class="inline" onSubmit=${(e) => (e.preventDefault(), setRange(draft))}>
      <label for="from">From</label><input id="from" type="date" value=${draft.from} required onInput=${(e) => setDraft({ ...draft, from: e.target.value })} />
      <label for="to">To</label><input id="to" type="date" value=${draft.to} required onInput=${(e) => setDraft({ ...draft, to: e.target.value })} />
      <label for="metric">Metric</label><select id="metric" value=${draft.metricId} onChange=${(e) => setDraft({ ...draft, metricId: e.target.value })}>
        <option value="">all</option>${(d?.metrics ?? []).map((m) => html`<option value=${m.id}>${m.name}</option>`)}</select>
      <button type="submit">Show</button>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${d && html`<div class="charts">
      <div class="card" data-card="events"><h3>Events per day (<span data-total="events">${sum(d.events, 'events')}</span> in range)</h3>
        <${DailyChart} name="events" from=${range.from} to=${range.to} series=${seriesOf(d.events, 'metricId', 'events', metricNames)} />
        <table data-totals="events">${seriesOf(d.events, 'metricId', 'events', metricNames).map((s) => html`<tr><td>${s.label}</td>
          <td class="num">${Object.values(s.byDate).reduce((a, b) => a + b, 0)}</td></tr>`)}</table></div>
      <div class="card" data-card="points"><h3>Points issued and consumed per day</h3>
        <${DailyChart} name="points" from=${range.from} to=${range.to} series=${[
          ...seriesOf(d.points, 'systemId', 'issued', systemNames).map((s) => ({ ...s, label: `${s.label} issued` })),
          ...seriesOf(d.points, 'systemId', 'consumed', systemNames).map((s) => ({ ...s, label: `${s.label} consumed` })),
        ]} />
        <p>Issued <span data-total="issued">${sum(d.points, 'issued')}</span>, consumed <span data-total="consumed">${sum(d.points, 'consumed')}</span></p></div>
      <div class="card" data-card="active"><h3>Active users per day</h3>
        <${DailyChart} name="active" from=${range.from} to=${range.to} series=${[{ label: 'users', byDate: Object.fromEntries(d.active.map((r) => [r.date, r.users])) }]} /></div>
      <div class="card" data-card="streaks"><h3>Streaks alive on ${range.to} (${d.streaks.frequency})</h3>
        <table><thead><tr><th>length</th><th>users</th><th></th></tr></thead><tbody>
          ${d.streaks.lengths.map((l) => html`<tr><td class="num">${l.length}</td><td class="num">${l.users}</td>
            <td><progress max=${maxStreakUsers} value=${l.users}></progress></td></tr>`)}
        </tbody></table>${d.streaks.lengths.length === 0 && html`<p class="muted">No streaks alive then.</p>`}</div>
      <div class="card" data-card="achievements"><h3>Achievement completion</h3>
        <table><thead><tr><th>achievement</th><th>in range</th><th>completed by</th><th>rate</th><th></th></tr></thead><tbody>
          ${d.achievements.map((a) => html`<tr data-achievement=${a.key}><td>${a.name}</td><td class="num">${a.completions}</td>
            <td class="num">${a.completedBy} / ${a.users}</td><td class="num">${(a.rate * 100).toFixed(1)}%</td>
            <td><progress max="1" value=${a.rate}></progress></td></tr>`)}
        </tbody></table></div>
    </div>`}
  </section>`;
}
