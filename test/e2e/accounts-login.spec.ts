import { expect, test } from '@playwright/test';
import { choose, open } from './support/pages';
import { useStudio } from './support/studio';

// Sign-in tokens go to the gateway's secret store: here its encrypted file (the supported
// alternative to the OS keychain), so the suite needs no keyring daemon.
const studio = useStudio({
  env: { ATELIER_SECRET_STORE: 'encrypted-file', ATELIER_SECRET_PASSPHRASE: 'e2e-throwaway' },
});

test('a subscription sign-in opens the authorize page and the account appears once it is done', async () => {
  const { page, context, server } = studio;
  await open(page, 'accounts');
  await page.getByTestId('add-account-open').click();
  const dialog = page.getByTestId('add-account');
  await choose(page, 'account-kind', 'login');
  await dialog.getByTestId('account-name').fill('team plan');
  await dialog.getByTestId('account-issuer').fill(server.simUrl);
  await dialog.getByTestId('account-backend-url').fill(`${server.simUrl}/backend-api/codex`);

  // The studio opens the authorize URL (here a browser tab; the simulator consents at once and
  // redirects to the gateway's loopback callback), then polls the sign-in until it is done.
  const [popup] = await Promise.all([
    context.waitForEvent('page'),
    dialog.getByTestId('account-submit').click(),
  ]);
  await expect(popup).toHaveURL(/localhost|127\.0\.0\.1/);
  const row = page.locator('[data-testid="account-row"][data-account-name="team plan"]');
  await expect(row).toBeVisible();
  await expect(row).toContainText('Subscription');
  await expect(row).toHaveAttribute('data-state', 'ready');
  await expect(dialog).toHaveCount(0);
  await popup.close();
  await studio.screenshot('accounts-signed-in');
});

test('an API-key account sends its key to the gateway and keeps none of it in the page', async () => {
  const { page, server } = studio;
  const secret = 'sk-e2e-never-in-the-renderer';
  await open(page, 'accounts');
  await page.getByTestId('add-account-open').click();
  const dialog = page.getByTestId('add-account');
  await choose(page, 'account-kind', 'api_key');
  await dialog.getByTestId('account-name').fill('provider');
  await dialog.getByTestId('account-base-url').fill(`${server.simUrl}/v1`);
  await dialog.getByTestId('account-api-key').fill(secret);
  await expect(dialog.getByTestId('account-api-key')).toHaveAttribute('type', 'password');
  await dialog.getByTestId('account-submit').click();
  const row = page.locator('[data-testid="account-row"][data-account-name="provider"]');
  await expect(row).toContainText('API key');
  await expect(row).toHaveAttribute('data-state', 'ready');

  const traces = await page.evaluate(
    (key) => ({
      dom: document.documentElement.outerHTML.includes(key),
      storage: JSON.stringify({ ...localStorage, ...sessionStorage }).includes(key),
    }),
    secret,
  );
  expect(traces).toEqual({ dom: false, storage: false });
  const { accounts } = await studio.admin<{ accounts: unknown[] }>('GET', '/api/admin/accounts');
  expect(JSON.stringify(accounts)).not.toContain(secret);
});
