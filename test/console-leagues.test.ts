import t from 'tap';
import { existsSync } from 'node:fs';
import puppeteer, { Browser } from 'puppeteer-core';
import { startServer } from './helpers/harness';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
  (p): p is string => !!p && existsSync(p),
);
const WAIT = { timeout: 20_000 };
declare const document: any;

t.test("the console's leagues page: configuration, tiers and the current cohorts", { skip: CHROMIUM ? false : 'no Chromium installed' }, async (t) => {
  const s = await startServer(t);
  const { xp } = await s.metrics(['xp']);
  const tiers = [{ key: 'bronze', name: 'Bronze', promote: 1, relegate: 0 }, { key: 'gold', name: 'Gold', promote: 0, relegate: 1 }];
  const made = await s.call('POST', '/admin/v1/leagues', { body: [{ key: 'wk', name: 'Weekly', rankBy: 'metric', metricId: xp!.id, cadence: 'weekly', cohortSize: 2, tiers }] });
  t.equal(made.status, 201);
  for (const [u, v] of [['ann', 5], ['bob', 9], ['cat', 1]] as const) await s.event('xp', { user: { id: u, name: u.toUpperCase() }, value: v });

  const browser: Browser = await puppeteer.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--headless=new', '--disable-gpu'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
  const waitText = (sel: string, want: string) =>
    page.waitForFunction((sel, want) => document.querySelector(sel)?.textContent?.includes(want), WAIT, sel, want);
  await page.goto(`${s.url}/console`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#api-key', WAIT);
  await page.type('#api-key', s.adminKey);
  await page.click('button[type=submit]');
  await page.waitForSelector('nav', WAIT);
  await page.goto(`${s.url}/console/leagues`, { waitUntil: 'domcontentloaded' });
  await waitText('[data-resource="/admin/v1/leagues"] tbody', 'wk');
  t.match(await page.$eval('[data-resource="/admin/v1/leagues"] tbody', (el) => el.textContent), /Weekly.*wk.*metric.*weekly.*America\/New_York.*2.*active/);
  await page.click(`[data-resource="/admin/v1/leagues"] tr[data-id="${made.body.created[0].id}"] .row-actions button`);
  await waitText('[data-league="wk"] tr[data-tier="bronze"]', 'Bronze');
  t.match(await page.$eval('[data-league="wk"] tr[data-tier="bronze"]', (el) => el.textContent), /Bronze.*bronze.*1.*0.*2/, 'two cohorts of bronze this run');
  // The first cohort's rankings, as the API ranks them.
  await page.click('[data-league="wk"] tr[data-tier="bronze"] button');
  await waitText('[data-league="wk"] table[data-cohort]', 'BOB');
  const rows = await page.$$eval('[data-league="wk"] table[data-cohort] tbody tr', (trs) => trs.map((tr: any) => tr.textContent));
  t.same(rows, ['1BOB9', '2ANN5']);
  t.same(problems, [], 'no errors in the page');
});
