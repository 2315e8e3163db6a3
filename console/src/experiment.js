// The experiment page: the control group against the experiment group (GET /admin/v1/analytics/experiment).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api, listAll } from './api.js';
import { useLoad } from './configure.js';

const today = () => new Date().toISOString().slice(0, 10);
const daysBefore = (date, n) => new Date(Date.parse(`${date}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
const HORIZONS = ['d1', 'd7', 'd30'];
const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const num = (x) => (x === null || x === undefined ? '–' : String(x));
const points = (x) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)} points`;

/** Retention on days 0 (everyone, by definition), 1, 7 and 30 of both groups. */
function RetentionChart({ groups }) {
  const el = useRef(null);
  useEffect(() => {
    const curve = (g) => [g.users ? 1 : null, g.retention.d1, g.retention.d7, g.retention.d30];
    const plot = new uPlot({
      width: Math.max(320, Math.min(el.current.clientWidth || 720, 960)), height: 220,
      series: [{ label: 'day' }, { label: 'control', stroke: '#7d7d7d', width: 2 }, { label: 'experiment', stroke: '#2f6fde', width: 2 }],
      axes: [{ values: (_, ticks) => ticks.map((d) => `day ${d}`) }, { size: 60, values: (_, ticks) => ticks.map((v) => `${Math.round(v * 100)}%`) }],
      legend: { live: false },
      scales: { x: { time: false }, y: { range: [0, 1] } },
    }, [[0, 1, 7, 30], curve(groups.control), curve(groups.experiment)], el.current);
    return () => plot.destroy();
  }, [JSON.stringify(groups)]);
  return html`<div class="chart" data-chart="retention" ref=${el}></div>`;
}

/** The lift in words: what the interval says, or why there is none. */
function liftText(l, h) {
  if (!l) return `Too few users to tell: each group needs at least 30 users whose day ${h.slice(1)} is over.`;
  const interval = `${points(l.low)} to ${points(l.high)}`;
  if (l.low > 0) return `The experiment group came back more: ${points(l.difference)} (95% interval ${interval}, p = ${l.pValue}).`;
  if (l.high < 0) return `The experiment group came back less: ${points(l.difference)} (95% interval ${interval}, p = ${l.pValue}).`;
  return `No clear difference: ${points(l.difference)}, and the 95% interval (${interval}) holds zero (p = ${l.pValue}).`;
}

const groupRows = (label, g) => html`<tr data-group=${label}><td>${label}</td><td class="num">${g.users}</td>
  ${HORIZONS.map((h) => html`<td class="num">${pct(g.retention[h])}</td>`)}
  <td class="num">${num(g.activeDaysPerUser)}</td><td class="num">${num(g.eventsPerActiveDay)}</td></tr>`;
const groupHead = html`<thead><tr><th></th><th>users</th><th>day 1</th><th>day 7</th><th>day 30</th><th>active days (0–29)</th><th>events / active day</th></tr></thead>`;

export function Experiment() {
  const [draft, setDraft] = useState(() => ({ from: daysBefore(today(), 59), to: today(), attribute: '' }));
  const [range, setRange] = useState(draft);
  const [attributes] = useLoad(() => listAll('/admin/v1/attributes'), []);
  const [d, error] = useLoad(
    () => api('GET', '/admin/v1/analytics/experiment', { query: { from: range.from, to: range.to, attribute: range.attribute || undefined } }),
    [range.from, range.to, range.attribute],
  );
  const weeks = Math.max(0, ...(d?.cohorts ?? []).map((c) => c.control.length));
  return html`<section class="experiment"><h2>Experiment</h2>
    <p class="muted">Users whose first active day (their own local date) falls in the range: the control group against the rest. See docs/analytics.md.</p>
    <form class="inline" onSubmit=${(e) => (e.preventDefault(), setRange(draft))}>
      <label for="exp-from">From</label><input id="exp-from" type="date" value=${draft.from} required onInput=${(e) => setDraft({ ...draft, from: e.target.value })} />
      <label for="exp-to">To</label><input id="exp-to" type="date" value=${draft.to} required onInput=${(e) => setDraft({ ...draft, to: e.target.value })} />
      <label for="exp-attribute">Split by</label><select id="exp-attribute" value=${draft.attribute} onChange=${(e) => setDraft({ ...draft, attribute: e.target.value })}>
        <option value="">nothing</option>${(attributes ?? []).filter((a) => a.type === 'user').map((a) => html`<option value=${a.key}>${a.name}</option>`)}</select>
      <button type="submit">Show</button>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${d && html`<div class="charts">
      <div class="card" data-card="retention"><h3>Retention</h3>
        <${RetentionChart} groups=${d.groups} />
        <table>${groupHead}<tbody>${groupRows('control', d.groups.control)}${groupRows('experiment', d.groups.experiment)}</tbody></table></div>
      <div class="card" data-card="lift"><h3>Lift (experiment minus control)</h3>
        <ul>${HORIZONS.map((h) => html`<li data-lift=${h}><strong>Day ${h.slice(1)}:</strong> ${liftText(d.lift[h], h)}</li>`)}</ul></div>
      <div class="card" data-card="cohorts"><h3>Weekly cohorts: share active in week k</h3>
        <table><thead><tr><th>week of</th><th>group</th>${Array.from({ length: weeks }, (_, k) => html`<th>${k}</th>`)}</tr></thead><tbody>
          ${d.cohorts.flatMap((c) => ['control', 'experiment'].map((g) => html`<tr data-cohort=${`${c.week} ${g}`}><td>${c.week}</td><td>${g}</td>
            ${c[g].map((x) => html`<td class="num">${pct(x)}</td>`)}</tr>`))}
        </tbody></table>${d.cohorts.length === 0 && html`<p class="muted">Nobody was first active in this range.</p>`}</div>
      ${d.byAttribute && html`<div class="card" data-card="by-attribute"><h3>By ${range.attribute}</h3>
        ${Object.entries(d.byAttribute).map(([value, g]) => html`<h4>${value}</h4><table data-value=${value}>${groupHead}<tbody>
          ${groupRows('control', g.control)}${groupRows('experiment', g.experiment)}</tbody></table>`)}
        ${Object.keys(d.byAttribute).length === 0 && html`<p class="muted">No user counted has a value.</p>`}</div>`}
    </div>`}
  </section>`;
}
