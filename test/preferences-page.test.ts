import t from 'tap';
import { startServer } from './helpers/harness';
import { actingUser } from './helpers/messages';
import { NEEDS_CHROMIUM, openPage, WAIT } from './helpers/chromium';
declare const document: any;

t.test("the unsubscribe link's preferences page, in Chromium", NEEDS_CHROMIUM, async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  await actingUser(s, 'ada', { email: 'ada@example.com' });
  await s.call('PATCH', '/v1/users/ada/preferences', { body: { notifications: { recap: ['email', 'push'] } } });
  // The link as an email carries it (the default template's text part shows it).
  const preview = await s.call('POST', '/admin/v1/templates/recap/preview', { body: { userId: 'ada' } });
  const link = /Preferences: (\S+)/.exec(preview.body.email.text)![1]!;
  const path = new URL(link).pathname;

  const { page, problems } = await openPage(t);
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await page.goto(`${s.url}${path}`, { waitUntil: 'domcontentloaded' });
  const checked = () => page.$$eval('input[type=checkbox]', (els) => els.filter((e: any) => e.checked).map((e: any) => `${e.name}:${e.value}`));
  t.same(await checked(), ['achievement_completed:email', 'recap:email', 'recap:push', 'reactivation:email', 'streak_reminder:email'], "the user's preferences");

  await page.click('input[name=recap][value=email]');
  await page.click('input[name=streak_reminder][value=push]');
  await page.click('input[name=achievement_completed][value=email]');
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type=submit]')]);
  await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.includes('Saved'), WAIT);
  t.same(await checked(), ['recap:push', 'reactivation:email', 'streak_reminder:email', 'streak_reminder:push'], 'the page shows what was saved');
  t.same((await s.call('GET', '/v1/users/ada/preferences')).body.notifications, {
    achievement_completed: [], recap: ['push'], reactivation: ['email'], streak_reminder: ['email', 'push'],
  }, 'the same preferences as the API');
  t.same(problems, [], 'no errors in the page (its CSP allows its own form)');

  await page.goto(`${s.url}${path.slice(0, -2)}xx`, { waitUntil: 'domcontentloaded' });
  t.match(await page.$eval('body', (b: any) => b.textContent), /not valid/, 'an altered link shows nothing of the user');
});
