// One user as Laurel sees them: profile, metric totals, points and recent
// awards, achievements with progress, streak and its calendar, leaderboard
// ranks, latest events. Everything is rendered as text: user ids and
// attribute values come from the application's users.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, listAll, p } from './api.js';
import { useLoad } from './configure.js';
import { navigate } from './router.js';

const HISTORY_PERIODS = 28;

async function loadUser(id) {
  const user = await api('GET', p`/v1/users/${id}`);
  const [metrics, systems, achievements, streak, boards, events] = await Promise.all([
    api('GET', p`/v1/users/${id}/metrics`),
    listAll('/admin/v1/points'),
    api('GET', p`/v1/users/${id}/achievements`, { query: { includeIncomplete: true } }),
    api('GET', p`/v1/users/${id}/streak`, { query: { historyPeriods: HISTORY_PERIODS } }),
    api('GET', '/v1/leaderboards'),
    api('GET', p`/admin/v1/users/${id}/events`, { query: { limit: 20 } }),
  ]);
  const [points, ranks] = await Promise.all([
    Promise.all(systems.map((s) => api('GET', p`/v1/users/${id}/points/${s.key}`, { query: { awards: 5 } }))),
    Promise.all(boards.map((b) => api('GET', p`/v1/users/${id}/leaderboards/${b.key}`, { query: { numEvents: 0 } }).catch(() => null))),
  ]);
  return { user, metrics, points, achievements, streak, ranks: ranks.filter(Boolean), events };
}

export function UserSearch() {
  const [id, setId] = useState('');
  return html`<section><h2>Users</h2>
    <form class="inline" onSubmit=${(e) => (e.preventDefault(), id && navigate(`/console/users/${encodeURIComponent(id)}`))}>
      <label for="user-id">User ID</label>
      <input id="user-id" value=${id} maxlength="255" onInput=${(e) => setId(e.target.value)} required />
      <button type="submit">Open</button>
    </form></section>`;
}

const Card = ({ title, children, name }) => html`<div class="card" data-card=${name}><h3>${title}</h3>${children}</div>`;

export function UserPage({ id }) {
  const [d, error] = useLoad(() => loadUser(id), [id]);
  if (error) return html`<${UserSearch} /><p class="error" role="alert">${error}</p>`;
  if (!d) return html`<p class="muted">Loading…</p>`;
  const metricName = Object.fromEntries(d.metrics.map((m) => [m.id, m.name]));
  return html`<section class="user"><h2>User <span data-user-id>${d.user.id}</span></h2>
    <div class="grid">
      <${Card} title="Profile" name="profile"><dl>
        <dt>Name</dt><dd>${d.user.name ?? '—'}</dd><dt>Email</dt><dd>${d.user.email ?? '—'}</dd>
        <dt>Time zone</dt><dd>${d.user.tz ?? '—'}</dd><dt>Created</dt><dd>${d.user.created}</dd>
        ${Object.entries(d.user.attributes).map(([k, v]) => html`<dt>${k}</dt><dd data-attr=${k}>${v}</dd>`)}
      </dl></${Card}>
      <${Card} title="Metrics" name="metrics"><table>
        ${d.metrics.map((m) => html`<tr><td>${m.name}</td><td class="num" data-metric=${m.key}>${m.current}</td></tr>`)}
      </table></${Card}>
      <${Card} title="Points" name="points">${d.points.map((s) => html`<div>
        <p><strong>${s.name}</strong>: <span class="num" data-points=${s.key}>${s.total}</span>${s.level ? ` (level ${s.level.name})` : ''}</p>
        <ul>${s.awards.map((a) => html`<li>${a.awarded > 0 ? '+' : ''}${a.awarded} on ${a.date.slice(0, 10)} → ${a.total}</li>`)}</ul>
      </div>`)}${d.points.length === 0 && html`<p class="muted">No points systems.</p>`}</${Card}>
      <${Card} title="Achievements" name="achievements"><table>
        ${d.achievements.map((a) => html`<tr data-achievement=${a.key}>
          <td>${a.name}<br /><small class="muted" title=${a.achievedAt ?? ''}>${a.achievedAt ? `completed ${a.achievedAt.slice(0, 10)}` : 'not yet'}</small></td>
          <td class="nowrap"><progress class="small" max=${a.progress.target || 1} value=${Math.min(a.progress.current, a.progress.target)}></progress>
            ${' '}${a.progress.current} / ${a.progress.target}</td></tr>`)}
      </table></${Card}>
      <${Card} title="Streak" name="streak">
        <p>Length <strong data-streak>${d.streak.length}</strong> (${d.streak.frequency})${d.streak.expires ? `, extend by ${d.streak.expires}` : ''}</p>
        <div class="calendar">${d.streak.streakHistory.map((h) => html`<span class=${`day${h.length > 0 ? ' on' : ''}${h.usedFreeze ? ' freeze' : ''}${h.usedPause ? ' pause' : ''}`}
          title=${`${h.periodStart}: ${h.length}`}>${h.periodStart.slice(8)}</span>`)}</div>
      </${Card}>
      <${Card} title="Leaderboards" name="ranks"><table>
        ${d.ranks.map((r) => html`<tr><td>${r.name}</td><td class="num">${r.rank === null ? 'unranked' : `#${r.rank}`}</td><td class="num">${r.value ?? ''}</td></tr>`)}
      </table>${d.ranks.length === 0 && html`<p class="muted">No active leaderboards.</p>`}</${Card}>
    </div>
    <${Card} title="Latest events" name="events"><table>
      <thead><tr><th>at</th><th>metric</th><th>value</th><th>total</th><th>attributes</th></tr></thead>
      <tbody>${d.events.map((e) => html`<tr><td>${e.occurredAt}</td><td>${metricName[e.metricId] ?? e.metricId}</td>
        <td class="num">${e.value}</td><td class="num">${e.total}</td>
        <td>${Object.entries(e.attributes).map(([k, v]) => `${k}=${v}`).join(', ')}</td></tr>`)}</tbody>
    </table>${d.events.length === 0 && html`<p class="muted">No events.</p>`}</${Card}>
  </section>`;
}
