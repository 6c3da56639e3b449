import { expect, test, type BrowserContext, type Cookie } from '@playwright/test';
import { open, ready } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

/** Gives the browser back the cookies it had: the person has signed in again. */
async function restore(context: BrowserContext, cookies: Cookie[]) {
  await context.clearCookies();
  await context.addCookies(cookies);
}

test('a session that ends under a running studio brings back the login screen, saying so', async () => {
  const { page, context } = studio;
  await open(page, 'keys');
  const signedIn = await context.cookies();
  // One cookie per port: two studios on 127.0.0.1 never sign each other out (issue 22).
  const port = new URL(studio.server.url).port;
  expect(signedIn.map((c) => c.name)).toContain(`atelier_session_${port}`);

  // To the gateway an expired session (30 idle days, a restart) is a cookie it no longer knows.
  await context.clearCookies();
  await context.addCookies(signedIn.map((c) => ({ ...c, value: 'no-longer-known' })));
  studio.allowConsole(/status of 401/);
  await page.getByTestId('nav-usage').click();

  const gate = page.getByTestId('login-required');
  await expect(gate).toBeVisible();
  await expect(gate).toHaveAttribute('data-expired', 'true');
  await expect(page.getByRole('heading', { name: 'Your studio session has ended' })).toBeVisible();
  await expect(page.getByTestId('session-expired')).toContainText('Open a new login link');
  await expect(page.locator('.app')).toHaveAttribute('data-session', 'login');
  // No page is left behind it showing errors.
  await expect(page.getByTestId('page-usage')).toHaveCount(0);
  await expect(page.locator('.sidebar')).toHaveCount(0);
  await studio.screenshot('session-expired');

  // Signed in again, "check again" opens the studio where the person was going.
  await restore(context, signedIn);
  await gate.getByRole('button', { name: /check again/ }).click();
  await expect(page.locator('.app')).toHaveAttribute('data-session', 'ok');
  await ready(page, 'usage');
});

test('a cleared cookie is noticed on the next page, and the studio comes back once signed in', async () => {
  const { page, context } = studio;
  await open(page, 'home');
  const signedIn = await context.cookies();
  await context.clearCookies();
  studio.allowConsole(/status of 401/);
  await page.getByTestId('nav-keys').click();
  await expect(page.getByTestId('login-required')).toHaveAttribute('data-expired', 'true');

  await restore(context, signedIn);
  await page
    .getByTestId('login-required')
    .getByRole('button', { name: /check again/ })
    .click();
  await ready(page, 'keys');
});

test('a browser that never signed in is asked for the link, with no talk of expiry', async () => {
  const { page, context } = studio;
  const signedIn = await context.cookies();
  await context.clearCookies();
  studio.allowConsole(/status of 401/);
  await page.reload();
  const gate = page.getByTestId('login-required');
  await expect(gate).toHaveAttribute('data-expired', 'false');
  await expect(page.getByRole('heading', { name: 'Open your login link' })).toBeVisible();
  await expect(page.getByTestId('session-expired')).toHaveCount(0);
  await restore(context, signedIn);
});
