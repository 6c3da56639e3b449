import net from 'node:net';
import { expect, test } from '@playwright/test';
import type { AccountResponse } from '../../src/shared/admin';
import { AccountsPage, GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

// An API-key account keeps its key in a secret store: an encrypted file here, as in
// accounts-login.spec.ts (no desktop keychain in the browser tests).
const studio = useStudio({
  env: { ATELIER_SECRET_STORE: 'encrypted-file', ATELIER_SECRET_PASSPHRASE: 'e2e-throwaway' },
});

/** A loopback port that was just free: nothing listens there, so a connection is refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('an account at a dead address reads failing with its reason, and Disable brings the simulator back', async () => {
  const { page } = studio;
  const { account } = await studio.admin<AccountResponse>('POST', '/api/admin/accounts', {
    kind: 'api_key',
    name: 'dead relay',
    baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
    apiKey: 'sk-e2e-dead',
  });

  // A run fails: the advice points at the account, not at the size or quality.
  studio.allowConsole(/status of 502/);
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A kite over the dunes');
  await generate.submit().click();
  const failed = page.getByTestId('run-error');
  await expect(failed).toHaveAttribute('data-kind', 'upstream');
  await expect(failed.getByTestId('error-advice')).toContainText('Accounts page');
  await expect(failed.getByTestId('error-advice')).not.toContainText(/size|quality/);

  // The account says it is failing and why; Test connection says so too.
  await open(page, 'accounts');
  const accounts = new AccountsPage(page);
  const row = accounts.row('dead relay');
  await expect(row).toHaveAttribute('data-account-id', account.id);
  await expect(row).toHaveAttribute('data-state', 'failing');
  await expect(row.getByTestId('account-status')).toHaveText('Failing');
  await expect(row.getByTestId('account-reason')).toContainText('ECONNREFUSED');
  await row.getByTestId('account-test').click();
  const result = row.getByTestId('account-test-result');
  await expect(result).toHaveAttribute('data-ok', 'false');
  await expect(result).toContainText('ECONNREFUSED');
  await studio.screenshot('accounts-failing');

  // Disabled, it leaves the built-in simulator serving: the next run makes its image.
  await row.getByTestId('account-disable').click();
  await expect(row).toHaveAttribute('data-state', 'disabled');
  await expect(page.getByTestId('simulator-only')).toBeVisible();
  await expect(page.getByTestId('simulator-badge')).toBeVisible();
  await open(page, 'generate');
  await generate.prompt().fill('A kite over the dunes');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  await expect(generate.results()).toHaveCount(1);
});
