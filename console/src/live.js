// A leaderboard, refreshed every few seconds (polling: it needs nothing but the read API).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, p } from './api.js';
import { Link, navigate } from './router.js';
import { useLoad } from './configure.js';

export const POLL_MS = 3000;

export function LiveList() {
  const [boards, error] = useLoad(() => api('GET', '/v1/leaderboards', { query: { includeFinished: true } }), []);
  return html`<section><h2>Leaderboards</h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <ul>${(boards ?? []).map((b) => html`<li><${Link} href=${`/console/live/${encodeURIComponent(b.key)}`}>${b.name}</${Link}> (${b.status})</li>`)}</ul>
    ${boards?.length === 0 && html`<p class="muted">No leaderboards yet.</p>`}
  </section>`;
}

export function LiveBoard({ boardKey }) {
  const [board, setBoard] = useState(null);
  const [error, setError] = useState(null);
  const [at, setAt] = useState(null);
  useEffect(() => {
    let live = true;
    let timer;
    const tick = async () => {
      try {
        const b = await api('GET', p`/v1/leaderboards/${boardKey}`, { query: { limit: 100 } });
        if (!live) return;
        setBoard(b);
        setError(null);
        setAt(new Date());
      } catch (err) {
        if (live) setError(err.message);
      }
      if (live) timer = setTimeout(tick, POLL_MS);
    };
    tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [boardKey]);
  return html`<section class="live"><h2>${board?.name ?? boardKey} <small class="muted">live</small></h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${at && html`<p class="muted">Status ${board.status}; refreshed every ${POLL_MS / 1000} s, last at ${at.toLocaleTimeString()}.</p>`}
    <table class="board"><thead><tr><th>rank</th><th>user</th><th>value</th></tr></thead>
      <tbody>${(board?.rankings ?? []).map((r) => html`<tr data-rank=${r.rank}>
        <td class="num">${r.rank}</td>
        <td><a href=${`/console/users/${encodeURIComponent(r.userId)}`} onClick=${(e) => (e.preventDefault(), navigate(`/console/users/${encodeURIComponent(r.userId)}`))}>${r.userName ?? r.userId}</a></td>
        <td class="num">${r.value}</td></tr>`)}</tbody>
    </table>${board?.rankings.length === 0 && html`<p class="muted">Nobody on the board yet.</p>`}
  </section>`;
}
