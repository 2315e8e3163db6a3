import t from 'tap';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import http from 'node:http';
import { startServer } from './helpers/harness';
import { NEEDS_CHROMIUM, openPage, WAIT } from './helpers/chromium';
import { CONSOLE_CSP } from '../src/api/console';

const SCREENSHOTS = path.resolve(__dirname, '../../screenshots');

// What the functions given to page.evaluate see: the browser's globals (this program is compiled without the DOM library).
declare const document: any, sessionStorage: any, localStorage: any, window: any, MouseEvent: any, Event: any;
type HTMLInputElement = any;
type HTMLSelectElement = any;

t.test('the console is served as static files under a strict CSP', async (t) => {
  const s = await startServer(t);
  const index = await fetch(`${s.url}/console`);
  t.equal(index.status, 200);
  t.match(index.headers.get('content-type'), /text\/html/);
  t.equal(index.headers.get('content-security-policy'), CONSOLE_CSP);
  t.match(CONSOLE_CSP, /default-src 'self'/);
  t.notMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/, 'no inline scripts or styles');
  t.equal(index.headers.get('cache-control'), 'no-cache', 'index.html is revalidated: a new build shows at once');
  const html = await index.text();
  t.notMatch(html, /<script>|<style|style=/, 'nothing inline in the page');
  const assets = [...html.matchAll(/\/console\/assets\/[\w.-]+/g)].map((m) => m[0]);
  t.equal(assets.length, 2, 'one script, one stylesheet');

  let gzipped = 0;
  for (const a of assets) {
    t.match(a, /-[A-Z0-9]{8}\.(js|css)$/, 'content-hashed name');
    const res = await fetch(`${s.url}${a}`, { headers: { 'Accept-Encoding': 'gzip' } });
    t.equal(res.status, 200, a);
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    gzipped += Number(res.headers.get('content-length'));
  }
  gzipped += html.length; // small: its gzip is smaller still
  t.ok(gzipped < 150 * 1024, `the whole console is ${(gzipped / 1024).toFixed(1)} KB gzipped, under 150 KB`);

  // Node's fetch unzips by itself: ask for the raw bytes over a plain request to see the encoding.
  const raw = await new Promise<{ enc: string | undefined; body: Buffer }>((resolve, reject) => {
    const u = new URL(`${s.url}${assets[0]}`);
    http.get({ host: u.hostname, port: u.port, path: u.pathname, headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  t.equal(raw.enc, 'gzip', 'sent gzipped when the browser accepts it');
  t.ok(gunzipSync(raw.body).length > raw.body.length);

  const route = await fetch(`${s.url}/console/users/some%20one`);
  t.equal(route.status, 200, 'client-side routes get index.html');
  t.equal(await route.text(), html);
  const missing = await fetch(`${s.url}/console/assets/main-NOPE.js`);
  t.equal(missing.status, 404, 'a missing asset is a 404, not the page');
  t.match(await missing.json(), { error: /asset/ });
  t.equal((await fetch(`${s.url}/console/assets/..%2F..%2Fpackage.json`)).status, 404, 'only built files are served');
  t.equal((await s.call('GET', '/admin/v1/metrics', { key: null })).status, 401, 'API routes are untouched');
});

t.test('the console in Chromium', NEEDS_CHROMIUM, async (t) => {
  const s = await startServer(t);
  const { page, problems } = await openPage(t);
  await page.setViewport({ width: 1280, height: 860 });
  page.on('console', (m) => {
    // 401/403/404/409 answers are logged by the browser as failed loads; those are expected here.
    if (m.type() === 'error' && !/status of 40[1349]/.test(m.text())) problems.push(m.text());
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const go = (p: string) => page.goto(`${s.url}${p}`, { waitUntil: 'domcontentloaded' });
  const text = (sel: string) => page.$eval(sel, (el) => el.textContent ?? '');
  const waitText = (sel: string, want: string) =>
    page.waitForFunction((sel, want) => document.querySelector(sel)?.textContent?.includes(want), WAIT, sel, want);
  const fill = async (sel: string, value: string) => {
    await page.$eval(sel, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(sel, value);
  };
  /** Choose the option whose label contains `label` (ids are not typed, they are picked). */
  const choose = async (sel: string, label: string) => {
    await page.waitForFunction((sel, label) => [...(document.querySelector(sel) as HTMLSelectElement).options].some((o) => o.text.includes(label)), WAIT, sel, label);
    const value = await page.$eval(sel, (el, label) => [...(el as HTMLSelectElement).options].find((o) => o.text.includes(label))!.value, label);
    await page.select(sel, value);
  };
  const submit = (form: string) => page.click(`form[data-form="${form}"] button[type=submit]`);
  /** Set a range's date inputs to 2026-03-01 .. 2026-03-16 (typing into a date input depends on the locale). */
  const setDates = async (from: string, to: string) => {
    for (const [sel, value] of [[from, '2026-03-01'], [to, '2026-03-16']] as const) {
      await page.$eval(sel, (el, value) => {
        (el as HTMLInputElement).value = value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, value);
    }
  };

  const appKey = (await s.call('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'ada' }] })).body.created[0].key;
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });

  await t.test('a wrong key is refused, and so is an application key', async (t) => {
    await go('/console');
    await page.waitForSelector('#api-key', WAIT);
    await page.type('#api-key', 'admin_nope.0000');
    await page.click('button[type=submit]');
    await waitText('[role=alert]', 'Missing or invalid API key');
    await shot('sign-in');
    await fill('#api-key', appKey);
    await page.click('button[type=submit]');
    await waitText('[role=alert]', 'Application API keys cannot use the Admin API');
    t.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0, 'nothing kept');
    t.equal(await page.$('nav'), null, 'not signed in');
  });

  await t.test('sign in: the key stays in sessionStorage, out of URLs', async (t) => {
    await fill('#api-key', s.adminKey);
    await page.click('button[type=submit]');
    await page.waitForSelector('nav', WAIT);
    t.equal(await page.evaluate(() => localStorage.length), 0);
    t.equal(await page.evaluate(() => sessionStorage.getItem('laurel.console.key')), s.adminKey, 'in this tab only');
    t.notOk(page.url().includes(s.adminKey.split('.')[1]!), 'never in the address');
  });

  await t.test('create a metric through its form; the API refuses a duplicate key and says why', async (t) => {
    await go('/console/metrics');
    await page.waitForSelector('#metric-name', WAIT);
    await fill('#metric-name', 'Lessons');
    await fill('#metric-key', 'lessons');
    await submit('metric');
    await waitText('[data-resource="/admin/v1/metrics"] tbody', 'lessons');
    await fill('#metric-name', 'Lessons again');
    await fill('#metric-key', 'lessons');
    await submit('metric');
    await waitText('form[data-form=metric] [role=alert]', 'Key already in use by another metric');
    t.same((await s.call('GET', '/admin/v1/metrics')).body.map((m: { key: string }) => m.key), ['lessons'], 'one metric, nothing half-saved');
    await shot('metrics');

    // Another tenant, picked from the list: its own (empty) configuration.
    await choose('#tenant-picker', 'Acme');
    await waitText('[data-resource="/admin/v1/metrics"] tbody', 'No metrics yet');
    t.equal(await page.evaluate(() => sessionStorage.getItem('laurel.console.tenant')), 'acme');
    await page.select('#tenant-picker', '');
    await waitText('[data-resource="/admin/v1/metrics"] tbody', 'lessons');
  });

  await t.test('an achievement with a prerequisite chosen from a list, and a leaderboard', async (t) => {
    await go('/console/achievements');
    await page.waitForSelector('#achievement-name', WAIT);
    await fill('#achievement-name', 'First lesson');
    await fill('#achievement-key', 'first');
    await choose('#achievement-metricId', 'Lessons');
    await fill('#achievement-metricValue', '1');
    await submit('achievement');
    await waitText('[data-resource="/admin/v1/achievements"] tbody', 'first');

    await fill('#achievement-name', 'Graduate');
    await fill('#achievement-key', 'graduate');
    await page.select('#achievement-trigger', 'achievement');
    const box = '[data-field=prerequisiteIds] label';
    await page.waitForFunction((box) => [...document.querySelectorAll(box)].some((l) => l.textContent!.includes('First lesson')), WAIT, box);
    await page.evaluate((box) => {
      const label = [...document.querySelectorAll(box)].find((l) => l.textContent!.includes('First lesson'))!;
      label.querySelector('input')!.click();
    }, box);
    await shot('achievements');
    await submit('achievement');
    await waitText('[data-resource="/admin/v1/achievements"] tbody', 'graduate');
    const list = (await s.call('GET', '/admin/v1/achievements')).body as { key: string; id: string; status: string; prerequisiteIds?: string[] }[];
    const first = list.find((a) => a.key === 'first')!;
    t.match(list.find((a) => a.key === 'graduate'), { trigger: 'achievement', status: 'active', prerequisiteIds: [first.id] });

    await go('/console/leaderboards');
    await page.waitForSelector('#leaderboard-name', WAIT);
    await fill('#leaderboard-name', 'Top learners');
    await fill('#leaderboard-key', 'top');
    await choose('#leaderboard-metricId', 'Lessons');
    await page.select('#leaderboard-status', 'active');
    await submit('leaderboard');
    await waitText('[data-resource="/admin/v1/leaderboards"] tbody', 'top');
    t.match((await s.call('GET', '/admin/v1/leaderboards')).body, [{ key: 'top', status: 'active', rankBy: 'metric' }]);
  });

  const HOSTILE = '<script>window.__owned = 1</script><img src=x onerror="window.__owned = 2">';
  await t.test("events sent through the API show on the user's page, as text", async (t) => {
    await s.attributes([{ key: 'nickname', type: 'user' }]);
    const lessons = (await s.call('GET', '/admin/v1/metrics')).body[0].id;
    t.equal((await s.call('PUT', '/admin/v1/streak', { body: { enabled: true, frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] } })).status, 200);
    t.equal((await s.call('POST', '/admin/v1/points', {
      body: [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    })).status, 201);
    t.equal((await s.event('lessons', { user: { id: 'ada', name: 'Ada', attributes: { nickname: HOSTILE } }, value: 3 })).status, 201);
    t.equal((await s.event('lessons', { user: { id: 'bob', name: 'Bob <i>the builder</i>' }, value: 1 })).status, 201);
    await s.drain();
    await go('/console/users/ada');
    await page.waitForSelector('[data-card=events] tbody tr', WAIT);
    t.equal(await text('[data-metric=lessons]'), '3', 'total per metric');
    t.match(await text('tr[data-achievement=first]'), /completed 2026-03-10.*3 \/ 1/);
    t.match(await text('tr[data-achievement=graduate]'), /completed 2026-03-10/, 'the prerequisite completed it');
    t.match(await text('[data-card=ranks]'), /Top learners#13/);
    t.equal(await text('[data-points=xp]'), '30', 'points, with the award');
    t.match(await text('[data-card=points] li'), '+30 on 2026-03-10 → 30');
    t.match(await text('[data-card=streak]'), /Length 1 \(daily\)/);
    t.equal(await page.$$eval('.calendar .day.on', (els) => els.length), 1, 'one day of the calendar counted');
    t.match(await text('[data-card=events] tbody'), /2026-03-10T12:00:00.000ZLessons33/);
    t.equal(await text('[data-attr=nickname]'), HOSTILE, 'the attribute value, character for character');
    t.equal(await page.$eval('[data-attr=nickname]', (el) => el.childElementCount), 0, 'no element made from it');
    t.equal(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned), undefined, 'nothing of it ran');
  });

  await t.test('a leaderboard, live', async (t) => {
    await go('/console/live/top');
    await waitText('tr[data-rank="1"]', 'Ada');
    t.match(await text('tr[data-rank="2"]'), 'Bob <i>the builder</i>1', 'names are text too');
    t.equal((await s.event('lessons', { user: { id: 'bob' }, value: 5 })).status, 201);
    await waitText('tr[data-rank="1"]', 'Bob'); // the next poll shows the change
    t.match(await text('tr[data-rank="1"]'), /6$/);
    t.match(await text('tr[data-rank="2"]'), /Ada3$/);
    await shot('live');
  });

  await t.test('charts over a chosen range', async (t) => {
    // Six more days: on day i, the first 1 + (i % 4) of four users do a lesson (15 events).
    const users = ['ada', 'bob', 'cy', 'dee'];
    for (let i = 1; i <= 6; i++) {
      s.clock.advance(86_400_000);
      for (const id of users.slice(0, 1 + (i % 4))) t.equal((await s.event('lessons', { user: { id }, value: 1 })).status, 201);
    }
    await s.drain();
    await go('/console/analytics');
    await page.waitForSelector('#from', WAIT);
    await setDates('#from', '#to');
    await page.click('form.inline button[type=submit]');
    await waitText('[data-total=events]', '18');
    t.ok(await page.$('[data-chart=events] canvas'), 'the events chart is drawn');
    t.ok(await page.$('[data-chart=active] canvas'), 'the active users chart is drawn');
    t.match(await text('[data-totals=events]'), /Lessons18/);
    t.equal(await text('[data-total=issued]'), String(10 * (3 + 1 + 5 + 15)), 'ten points a lesson');
    // Streaks alive on the last day: ada every day (7), bob since 03-15 (2), cy since 03-16 (1); dee's ended.
    t.same(await page.$$eval('[data-card=streaks] tbody tr', (rows) => rows.map((r) => r.textContent)), ['11', '21', '71']);
    t.match(await text('tr[data-achievement=graduate]'), /Graduate44 \/ 4100.0%/);
    await shot('analytics');

    // A week on, ada's page: seven days of streak on the calendar.
    await go('/console/users/ada');
    await waitText('[data-card=streak]', 'Length 7');
    t.equal(await page.$$eval('.calendar .day.on', (els) => els.length), 7);
    t.equal(await page.$$eval('[data-card=events] tbody tr', (els) => els.length), 7, 'every event, newest first');
    await shot('user');
  });

  await t.test('the experiment page: both groups, the lift in words, cohorts and the split by an attribute', async (t) => {
    const want = (await s.call('GET', '/admin/v1/analytics/experiment?from=2026-03-01&to=2026-03-16&attribute=nickname')).body;
    await go('/console/experiment');
    await page.waitForSelector('#exp-from', WAIT);
    await setDates('#exp-from', '#exp-to');
    await choose('#exp-attribute', 'nickname');
    await page.click('section.experiment form.inline button[type=submit]');
    await waitText('[data-card=by-attribute]', 'By nickname');
    t.ok(await page.$('[data-chart=retention] canvas'), 'the retention curves are drawn');
    t.match(await text('tr[data-group=experiment]'), new RegExp(`^experiment${want.groups.experiment.users}`), 'the experiment group as the API counts it');
    t.match(await text('tr[data-group=control]'), /^control0–––––$/, 'nobody in the control group: no shares, no means');
    for (const h of ['d1', 'd7', 'd30']) t.match(await text(`[data-lift=${h}]`), /Too few users to tell/, `${h}: said in words`);
    t.equal(await page.$$eval('[data-card=cohorts] tbody tr', (rows) => rows.length), 2 * want.cohorts.length, 'a row per cohort and group');
    t.equal(await text('[data-card=by-attribute] h4'), HOSTILE, "ada's nickname, as text");
    await shot('experiment');
  });

  await t.test('state transitions from the leaderboard list', async (t) => {
    await go('/console/leaderboards');
    await waitText('[data-resource="/admin/v1/leaderboards"] tbody', 'top');
    await page.evaluate(() => [...document.querySelectorAll('tbody button')].find((b) => b.textContent === 'finish')!.dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await waitText('[data-resource="/admin/v1/leaderboards"] tbody', 'finished');
    t.match((await s.call('GET', '/admin/v1/leaderboards')).body, [{ key: 'top', status: 'finished' }]);
  });

  await t.test('admin keys: create (shown once), the lock-out guard says why, revoke', async (t) => {
    await go('/console/admin-keys');
    await waitText('[data-resource="/admin/v1/admin-api-keys"] tbody', 'ADMIN_API_KEY');
    await fill('#admin-key-name', 'ops');
    await submit('admin-key');
    await waitText('.notice', 'shown once');
    const shown = await page.$eval('.notice [data-secret]', (el) => el.textContent);
    t.match(shown, /^admin_\w{10}\.\w{40}$/);
    const clickIn = (name: string, label: string) => page.evaluate((name, label) => [...document.querySelectorAll('tbody tr')]
      .find((tr) => tr.textContent.includes(name))!.querySelectorAll('button').forEach((b: any) => b.textContent === label && b.dispatchEvent(new MouseEvent('click', { bubbles: true }))), name, label);
    await clickIn('ops', 'revoke');
    await waitText('[role=alert]', 'last active admin key');
    await fill('#admin-key-name', 'ci');
    await submit('admin-key');
    await waitText('[data-resource="/admin/v1/admin-api-keys"] tbody', 'ci');
    await clickIn('ops', 'revoke');
    await waitText('[data-resource="/admin/v1/admin-api-keys"] tbody', 'inactive');
    t.match((await s.call('GET', '/admin/v1/admin-api-keys')).body.find((k: { name: string }) => k.name === 'ops'), { status: 'inactive' });
    await shot('admin-keys');
  });

  await t.test('the audit log lists changes and filters them', async (t) => {
    await go('/console/audit-log');
    await waitText('[data-resource="/admin/v1/audit-log"] tbody', 'revoke');
    await fill('#audit-resource', 'metrics');
    await submit('audit-filter');
    await page.waitForFunction(() => ![...document.querySelectorAll('[data-resource="/admin/v1/audit-log"] tbody tr')].some((tr) => tr.textContent.includes('admin-api-keys')), WAIT);
    await waitText('[data-resource="/admin/v1/audit-log"] tbody', 'metrics');
    await shot('audit-log');
    t.pass('filtered to metrics');
  });

  await t.test('messages: a channel saved and shown redacted, a template previewed as it is typed, the log', async (t) => {
    await go('/console/channels');
    await page.waitForSelector('#channel-email', WAIT);
    await page.$eval('#channel-email', (el) => {
      el.value = JSON.stringify({ smtpUrl: 'smtp://mailer:pw-secret@127.0.0.1:9', from: { email: 'game@example.com' }, status: 'active' });
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.click('section[data-channel=email] form button[type=submit]');
    await waitText('section[data-channel=email] [role=status]', 'Saved.');
    t.match(await text('section[data-channel=email] pre'), /mailer:\[redacted\]@127\.0\.0\.1:9/);
    t.notOk((await page.content()).includes('pw-secret'), 'the password is not on the page');

    await go('/console/templates');
    await page.waitForSelector('#tpl-email-subject', WAIT);
    await page.type('#preview-user', 'ada');
    await fill('#tpl-email-subject', 'Well done {{ user.name }}');
    await waitText('#preview', 'Well done Ada');
    t.equal((await s.call('GET', '/admin/v1/templates')).body[0].default, true, 'a preview saves nothing');
    await page.click('.editor form button[type=submit]');
    await waitText('[role=status]', 'Saved.');
    t.match((await s.call('GET', '/admin/v1/templates')).body[0], { type: 'achievement_completed', default: false, email: { subject: 'Well done {{ user.name }}' } });

    await go('/console/messages');
    await waitText('main', 'No messages.');
  });

  await t.test('every configuration page renders', async (t) => {
    for (const [slug, text] of [
      ['attributes', 'nickname'], ['points', 'xp'], ['streak', 'Metrics and thresholds'], ['webhooks', 'No webhook endpoints yet'],
      ['keys', 'New application key'], ['tenants', 'acme'], ['dead-letters', 'No dead letters yet'],
    ]) {
      await go(`/console/${slug}`);
      await waitText('main', text!);
      t.pass(slug!);
    }
  });

  t.same(problems, [], 'no script errors and no CSP violations');
});
