import t from 'tap';
import { startServer } from './helpers/harness';
import { NEEDS_CHROMIUM, openPage, signIn, WAIT } from './helpers/chromium';

declare const document: any;

t.test("the console's leagues page: configuration, tiers and the current cohorts", NEEDS_CHROMIUM, async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  const tiers = [{ key: 'bronze', name: 'Bronze', promote: 1, relegate: 0 }, { key: 'gold', name: 'Gold', promote: 0, relegate: 1 }];
  const made = await s.call('POST', '/admin/v1/leagues', { body: [{ key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 2, tiers }] });
  t.equal(made.status, 201);
  for (const [u, v] of [['ann', 5], ['bob', 9], ['cat', 1]] as const) await s.event('xp', { user: { id: u, name: u.toUpperCase() }, value: v });

  const { page, problems } = await openPage(t);
  const waitText = (sel: string, want: string) =>
    page.waitForFunction((sel, want) => document.querySelector(sel)?.textContent?.includes(want), WAIT, sel, want);
  await signIn(page, s.url, s.adminKey);
  await page.goto(`${s.url}/console/leagues`, { waitUntil: 'domcontentloaded' });
  await waitText('[data-resource="/admin/v1/leagues"] tbody', 'wk');
  t.match(await page.$eval('[data-resource="/admin/v1/leagues"] tbody', (el) => el.textContent), /Weekly.*wk.*metric.*weekly.*America\/New_York.*2.*active/);
  await page.click(`[data-resource="/admin/v1/leagues"] tr[data-id="${made.body.created[0].id}"] .row-actions button`);
  await waitText('[data-league="wk"] tr[data-tier="bronze"]', 'Bronze');
  // Cell by cell: name, key, promoted, relegated, and the cohorts opened this run (two of bronze).
  const cells = await page.$$eval('[data-league="wk"] tr[data-tier="bronze"] td', (tds) => tds.map((td: any) => td.textContent));
  t.same(cells.slice(0, 4), ['Bronze', 'bronze', '1', '0'], 'the tier as configured');
  t.match(cells[4], /^2\b/, 'two cohorts of bronze this run');
  t.equal((await page.$$('[data-league="wk"] tr[data-tier="bronze"] button')).length, 2, 'a button for each cohort');
  // The first cohort's rankings, as the API ranks them.
  await page.click('[data-league="wk"] tr[data-tier="bronze"] button');
  await waitText('[data-league="wk"] table[data-cohort]', 'BOB');
  const rows = await page.$$eval('[data-league="wk"] table[data-cohort] tbody tr', (trs) => trs.map((tr: any) => tr.textContent));
  t.same(rows, ['1BOB9', '2ANN5']);
  t.same(problems, [], 'no errors in the page');
});
