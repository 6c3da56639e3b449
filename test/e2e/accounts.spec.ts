import { expect, test, type Page } from '@playwright/test';
import { AccountsPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

/** The upstream badge under the brand in the sidebar, whichever kind it is. */
const sidebarBadge = (page: Page) =>
  page.locator('.brand').locator('[data-testid="simulator-badge"], [data-testid="upstream-badge"]');

test('an account rests after a scripted 429, and the page says why and for how long', async () => {
  const { page, server } = studio;
  await open(page, 'accounts');
  await expect(page.getByTestId('simulator-only')).toBeVisible();
  const badge = sidebarBadge(page);
  await expect(badge).toHaveText('Offline simulator');
  const accounts = new AccountsPage(page);
  const id = await accounts.addSimulator('sim e2e');
  const row = accounts.row('sim e2e');
  await expect(row).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('simulator-only')).toHaveCount(0);
  // The sidebar follows: the simulator no longer serves alone.
  await expect(page.getByTestId('simulator-badge')).toHaveCount(0);
  await expect(badge).toHaveText('1 of 1 account ready');

  // The simulator answers this account's next image call with a usage limit, reset in 10 min.
  const fault = await fetch(`${server.simUrl}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.simControl },
    body: JSON.stringify({
      faults: [{ kind: 'usage_limit', resetsInSeconds: 600, match: { accountId: `sim-${id}` } }],
    }),
  });
  expect(fault.ok).toBe(true);

  studio.allowConsole(/status of (429|503)/);
  const status = await page.evaluate(async () => {
    const response = await fetch('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-atelier-studio': '1' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'A quiet harbour',
        size: '1024x1024',
      }),
    });
    return response.status;
  });
  expect(status).toBeGreaterThanOrEqual(400);

  // The next poll shows the cooldown, its reason and the time left, counting down.
  await expect(row).toHaveAttribute('data-state', 'cooling');
  await expect(row.getByTestId('account-status')).toHaveText('Cooling down');
  await expect(row.getByTestId('account-reason')).not.toBeEmpty();
  const left = row.getByTestId('cooldown-left');
  await expect(left).toHaveText(/^(9|10) min/);
  const first = await left.textContent();
  await expect(left).not.toHaveText(first!);
  await expect(badge).toHaveText('0 of 1 account ready');
  await studio.screenshot('accounts-cooldown');

  // "Retry now" ends the rest at once.
  await row.getByTestId('account-clear-cooldown').click();
  await expect(row).toHaveAttribute('data-state', 'ready');
  await expect(badge).toHaveText('1 of 1 account ready');
});

test('an account can be disabled, enabled and deleted', async () => {
  const { page } = studio;
  await open(page, 'accounts');
  const accounts = new AccountsPage(page);
  await accounts.addSimulator('spare');
  const badge = sidebarBadge(page);
  await expect(badge).toHaveText('2 of 2 accounts ready');
  const row = accounts.row('spare');
  await row.getByTestId('account-disable').click();
  await expect(row).toHaveAttribute('data-state', 'disabled');
  await expect(badge).toHaveText('1 of 2 accounts ready');
  await row.getByTestId('account-enable').click();
  await expect(row).toHaveAttribute('data-state', 'ready');
  await expect(badge).toHaveText('2 of 2 accounts ready');
  await row.getByTestId('account-delete').click();
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  await expect(row).toHaveCount(0);
  await expect(badge).toHaveText('1 of 1 account ready');
});

test('the sidebar badge catches up with accounts changed elsewhere when the studio is shown again', async () => {
  const { page } = studio;
  await open(page, 'home');
  const badge = sidebarBadge(page);
  await expect(badge).toHaveText('1 of 1 account ready');
  // Another client (the CLI, a second window) adds an account while this page shows Home.
  await studio.admin('POST', '/api/admin/accounts', { kind: 'simulator', name: 'from elsewhere' });
  // Coming back to the window (a visibility change) refreshes at once, without the 15 s poll.
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await expect(badge).toHaveText('2 of 2 accounts ready');
});

test('the account form asks what the account is first, and routing in plain words after', async () => {
  const { page } = studio;
  await open(page, 'accounts');
  await page.getByTestId('add-account-open').click();
  const dialog = page.getByTestId('add-account');
  await page
    .getByTestId('account-kind')
    .locator('label', { has: page.locator('input[value="api_key"]') })
    .click();
  const labels = await dialog.locator('.form-grid label').allTextContents();
  const order = (label: string) => labels.findIndex((l) => l.includes(label));
  expect(order('Name')).toBe(0);
  expect(order('Base URL')).toBeLessThan(order('Priority'));
  expect(order('API key')).toBeLessThan(order('Images at once'));
  expect(labels.join(' ')).not.toMatch(/\bTier\b|Capacity/);
  // The engineer's word stays, in the hint.
  await expect(dialog.getByTestId('account-capacity').locator('..')).toContainText('Capacity');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  // The table too: plain headings, the engineer's word and its meaning on hover.
  await expect(page.getByRole('columnheader', { name: 'Priority' })).toHaveAttribute(
    'title',
    /^Tier:/,
  );
  await expect(page.getByRole('columnheader', { name: 'Busy now' })).toHaveAttribute(
    'title',
    /^Live load:/,
  );
});
