import { existsSync } from 'node:fs';
import puppeteer, { type Page } from 'puppeteer-core';

// The browser tests' Chromium: Debian's (`.ci/run` installs it); CHROMIUM_PATH names another.
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
  (p): p is string => !!p && existsSync(p),
);

/** A browser test's options: skipped where no Chromium is installed. */
export const NEEDS_CHROMIUM = { skip: CHROMIUM ? false : 'no Chromium installed (apt-get install -y chromium, or set CHROMIUM_PATH)' };

/** How long a page may take to show what a test waits for. */
export const WAIT = { timeout: 20_000 };

/**
 * A page in a headless Chromium of its own, closed when the test ends, and
 * the script errors it has met (`problems`, for the test to find empty).
 */
export async function openPage(t: { teardown(fn: () => unknown): void }): Promise<{ page: Page; problems: string[] }> {
  const browser = await puppeteer.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--headless=new', '--disable-gpu'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
  return { page, problems };
}

/** Open the console and sign in with an admin key. */
export async function signIn(page: Page, url: string, adminKey: string): Promise<void> {
  await page.goto(`${url}/console`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#api-key', WAIT);
  await page.type('#api-key', adminKey);
  await page.click('button[type=submit]');
  await page.waitForSelector('nav', WAIT);
}
