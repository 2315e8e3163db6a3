import t from 'tap';
import { startServer } from './helpers/harness';
import { NEEDS_CHROMIUM, openPage, signIn, WAIT } from './helpers/chromium';

// The console's Environments page in Chromium: compare two tenants, copy the differences through plan and apply.

declare const document: any;

t.test('compare two tenants and copy the differences', NEEDS_CHROMIUM, async (t) => {
  const s = await startServer(t);
  await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'staging', name: 'Staging' }, { customerId: 'prod', name: 'Prod' }] });
  await s.metrics(['visits', 'shares'], 'staging');
  await s.metrics(['visits'], 'prod');
  await s.call('PATCH', '/admin/v1/metrics', { tenant: 'prod', body: [{ id: (await s.call('GET', '/admin/v1/metrics', { tenant: 'prod' })).body[0].id, name: 'Old name' }] });
  await s.call('POST', '/admin/v1/attributes', { tenant: 'prod', body: [{ key: 'legacy', name: 'Legacy', type: 'user' }] });

  const { page, problems } = await openPage(t);
  const rowsOf = () =>
    page.$$eval('[data-plan] tbody tr[data-change]', (trs) => trs.map((tr: any) => [tr.dataset.change, tr.dataset.kind, tr.dataset.key, tr.children[3].textContent]));
  const choose = async (sel: string, label: string) => {
    await page.waitForFunction((sel, label) => [...document.querySelector(sel).options].some((o: any) => o.text.includes(label)), WAIT, sel, label);
    const value = await page.$eval(sel, (el: any, label) => [...el.options].find((o: any) => o.text.includes(label)).value, label);
    await page.select(sel, value);
  };

  await signIn(page, s.url, s.adminKey);
  await page.click('nav a[href="/console/environments"]');
  await page.waitForSelector('#env-from', WAIT);
  await choose('#env-from', 'Staging');
  await choose('#env-to', 'Prod');
  await page.waitForFunction(() => document.querySelector('[data-plan] tr[data-change=update][data-key=visits]'), WAIT);
  t.same(await rowsOf(), [['create', 'metrics', 'shares', ''], ['update', 'metrics', 'visits', 'name']], 'side by side: what prod has, what staging would give it');
  t.match(await page.$eval('tr[data-key=visits]', (tr: any) => tr.textContent), /"Old name".*"Metric visits"/);

  await page.click('#env-prune');
  await page.waitForFunction(() => document.querySelector('tr[data-change=delete]'), WAIT);
  t.same((await rowsOf()).map((r) => r.slice(0, 3)), [['create', 'metrics', 'shares'], ['update', 'metrics', 'visits'], ['delete', 'attributes', 'legacy']]);
  t.equal((await s.call('GET', '/admin/v1/metrics', { tenant: 'prod' })).body.length, 1, 'comparing applies nothing');

  await page.click('#env-apply');
  await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent.includes('Copied: 3 change(s)'), WAIT);
  await page.waitForFunction(() => document.querySelector('[data-plan] tbody')?.textContent.includes('No differences.'), WAIT);
  const prod = (await s.call('GET', '/admin/v1/config', { tenant: 'prod' })).body;
  const staging = (await s.call('GET', '/admin/v1/config', { tenant: 'staging' })).body;
  t.same(prod.resources, staging.resources, 'prod now has staging\'s configuration');
  t.same((await s.call('GET', '/admin/v1/config/history', { tenant: 'prod' })).body.map((v: any) => v.changes), [3], 'as one version');
  t.same(problems, []);
});
