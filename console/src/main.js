// The Laurel console: sign in with an admin key, then configure, inspect and watch.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, listAll, session } from './api.js';
import * as C from './configure.js';
import { Analytics } from './analytics.js';
import { Experiment } from './experiment.js';
import { LiveBoard, LiveList } from './live.js';
import { Link, navigate, usePath } from './router.js';
import { UserPage, UserSearch } from './user.js';
import { AdminKeys, AuditLog } from './security.js';
import { Channels, MessageLog, Templates } from './messages.js';
import { Environments } from './environments.js';

const PAGES = [
  ['metrics', 'Metrics', C.Metrics],
  ['attributes', 'Attributes', C.Attributes],
  ['points', 'Points', C.Points],
  ['achievements', 'Achievements', C.Achievements],
  ['streak', 'Streak', C.Streak],
  ['leaderboards', 'Leaderboards', C.Leaderboards],
  ['leagues', 'Leagues', C.Leagues],
  ['webhooks', 'Webhooks', C.Webhooks],
  ['channels', 'Message channels', Channels],
  ['templates', 'Message templates', Templates],
  ['keys', 'Application keys', C.Keys],
  ['tenants', 'Tenants', C.Tenants],
  ['dead-letters', 'Dead letters', C.DeadLetters],
  ['admin-keys', 'Admin keys', AdminKeys],
  ['audit-log', 'Audit log', AuditLog],
  ['environments', 'Environments', Environments],
];

function SignIn({ onSignIn }) {
  const [key, setKey] = useState('');
  const [tenant, setTenant] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      // An admin-only read: an application key is refused here too.
      await api('GET', '/admin/v1/tenants', { key, tenant: '', query: { limit: 1 } });
      session.signIn(key, tenant);
      onSignIn();
    } catch (err) {
      setError(err.message);
    }
  };
  return html`<main class="signin"><h1>Laurel console</h1>
    <form onSubmit=${submit} class="form">
      <div class="field"><label for="api-key">Admin API key</label>
        <input id="api-key" type="password" autocomplete="off" required value=${key} onInput=${(e) => setKey(e.target.value)} /></div>
      <div class="field"><label for="tenant">Tenant-ID (empty: the default tenant)</label>
        <input id="tenant" value=${tenant} onInput=${(e) => setTenant(e.target.value)} /></div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="actions"><button type="submit">Sign in</button></div>
      <p class="muted">The key is kept in this tab only (sessionStorage) and sent as a header.</p>
    </form></main>`;
}

function TenantPicker({ onChange }) {
  const [tenants, setTenants] = useState([]);
  useEffect(() => {
    listAll('/admin/v1/tenants').then(setTenants, () => setTenants([]));
  }, []);
  return html`<label class="tenant">Tenant <select id="tenant-picker" value=${session.tenant()} onChange=${(e) => (session.setTenant(e.target.value), onChange())}>
    <option value="">Default</option>
    ${tenants.filter((t) => t.customerId).map((t) => html`<option value=${t.customerId}>${t.name} (${t.customerId})</option>`)}
    ${session.tenant() && !tenants.some((t) => t.customerId === session.tenant()) && html`<option value=${session.tenant()}>${session.tenant()}</option>`}
  </select></label>`;
}

function Page({ path }) {
  const parts = path.replace(/^\/console\/?/, '').split('/').map(decodeURIComponent);
  const [section, arg] = parts;
  const page = PAGES.find(([slug]) => slug === section);
  if (page) return html`<${page[2]} />`;
  if (section === 'users') return arg ? html`<${UserPage} key=${arg} id=${arg} />` : html`<${UserSearch} />`;
  if (section === 'messages') return html`<${MessageLog} />`;
  if (section === 'live') return arg ? html`<${LiveBoard} key=${arg} boardKey=${arg} />` : html`<${LiveList} />`;
  if (section === 'experiment') return html`<${Experiment} />`;
  if (section === 'analytics' || !section) return html`<${Analytics} />`;
  return html`<p>Nothing here. <${Link} href="/console">Back to the console</${Link}></p>`;
}

function App() {
  const [signedIn, setSignedIn] = useState(!!session.key());
  const [tenantRev, setTenantRev] = useState(0);
  const path = usePath();
  if (!signedIn) return html`<${SignIn} onSignIn=${() => setSignedIn(true)} />`;
  const nav = (href, text) => html`<${Link} href=${href} class=${path === href || path.startsWith(`${href}/`) ? 'current' : ''}>${text}</${Link}>`;
  return html`<div class="layout">
    <header><strong>Laurel</strong>
      <${TenantPicker} key=${path} onChange=${() => setTenantRev(tenantRev + 1)} />
      <button class="link" id="sign-out" onClick=${() => (session.signOut(), setSignedIn(false), navigate('/console'))}>Sign out</button>
    </header>
    <nav>
      <h4>Watch</h4>${nav('/console/analytics', 'Analytics')}${nav('/console/experiment', 'Experiment')}${nav('/console/live', 'Live leaderboards')}
      <h4>Inspect</h4>${nav('/console/users', 'Users')}${nav('/console/messages', 'Message log')}
      <h4>Configure</h4>${PAGES.map(([slug, title]) => nav(`/console/${slug}`, title))}
    </nav>
    <main key=${`${tenantRev}-${path}`}><${Page} path=${path} /></main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
