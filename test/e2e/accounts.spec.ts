import { expect, test } from '@playwright/test';
import { AccountsPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('an account rests after a scripted 429, and the page says why and for how long', async () => {
  const { page, server } = studio;
  await open(page, 'accounts');
  await expect(page.getByTestId('simulator-only')).toBeVisible();
  const accounts = new AccountsPage(page);
  const id = await accounts.addSimulator('sim e2e');
  const row = accounts.row('sim e2e');
  await expect(row).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('simulator-only')).toHaveCount(0);

  // The simulator answers this account's next image call with a usage limit, reset in 10 min.
  const fault = await fetch(`${server.simUrl}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
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
  await studio.screenshot('accounts-cooldown');

  // "Retry now" ends the rest at once.
  await row.getByTestId('account-clear-cooldown').click();
  await expect(row).toHaveAttribute('data-state', 'ready');
});

test('an account can be disabled, enabled and deleted', async () => {
  const { page } = studio;
  await open(page, 'accounts');
  const accounts = new AccountsPage(page);
  await accounts.addSimulator('spare');
  const row = accounts.row('spare');
  await row.getByTestId('account-disable').click();
  await expect(row).toHaveAttribute('data-state', 'disabled');
  await row.getByTestId('account-enable').click();
  await expect(row).toHaveAttribute('data-state', 'ready');
  await row.getByTestId('account-delete').click();
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  await expect(row).toHaveCount(0);
});
