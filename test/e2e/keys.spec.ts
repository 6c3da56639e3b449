import { expect, test } from '@playwright/test';
import { settled } from './support/api';
import { KeysPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('a key made on the keys page works on /v1 until it is disabled, then gets 401', async () => {
  const { page } = studio;
  await open(page, 'keys');
  const keys = new KeysPage(page);
  const secret = await keys.create('e2e app', 'default');
  expect(secret).toMatch(/^atl_/);
  const row = keys.row('e2e app');
  await expect(row).toHaveAttribute('data-status', 'active');
  await expect(row.getByTestId('key-spend')).toHaveText('$0.0000');

  // The key works as another app would use it.
  const ok = await studio.v1('/images/generations', secret, {
    model: 'image-model-2',
    prompt: 'A red kite over a green hill',
    size: '1024x1024',
    quality: 'low',
  });
  expect(ok.status).toBe(200);

  // Its spend and last use show after a reload of the list.
  await settled(studio, 'usage', 1);
  await page.reload();
  await open(page, 'keys');
  await expect(row.getByTestId('key-spend')).not.toHaveText('$0.0000');
  await expect(row).toContainText('just now');

  await row.getByTestId('key-disable').click();
  await expect(row).toHaveAttribute('data-status', 'disabled');
  await studio.screenshot('keys-disabled');
  const refused = await studio.v1('/images/generations', secret, {
    model: 'image-model-2',
    prompt: 'A red kite over a green hill',
    size: '1024x1024',
  });
  expect(refused.status).toBe(401);

  await row.getByTestId('key-enable').click();
  await expect(row).toHaveAttribute('data-status', 'active');
  expect((await studio.v1('/models', secret)).status).toBe(200);
});

test('the built-in Studio key can be renamed but not disabled or deleted', async () => {
  const { page } = studio;
  // The Studio key is made the first time the studio calls /v1.
  const models = await page.evaluate(
    async () => (await fetch('/v1/models', { headers: { 'x-atelier-studio': '1' } })).status,
  );
  expect(models).toBe(200);
  await open(page, 'home');
  await open(page, 'keys');
  const studioRow = page.locator('[data-testid="key-row"]', { hasText: 'Built in' });
  await expect(studioRow).toHaveCount(1);
  await expect(studioRow.getByTestId('key-disable')).toHaveCount(0);
  await expect(studioRow.getByTestId('key-delete')).toHaveCount(0);
});

test('a deleted key is gone after confirming', async () => {
  const { page } = studio;
  await open(page, 'keys');
  const keys = new KeysPage(page);
  await keys.create('short-lived');
  await keys.row('short-lived').getByTestId('key-delete').click();
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  await expect(keys.row('short-lived')).toHaveCount(0);
});

test('the key form says what is wrong before anything is sent', async () => {
  const { page } = studio;
  await open(page, 'keys');
  await page.getByTestId('create-key').click();
  await page.getByTestId('key-name').fill('capped');
  await page.getByTestId('key-concurrency').fill('5000');
  await page.getByTestId('key-submit').click();
  await expect(page.getByTestId('key-form')).toContainText('1 to 1000');
  await page.getByTestId('key-form').getByRole('button', { name: 'Cancel' }).click();
});

test('at 1024x700 every key shows its name, status, spend and its actions without sideways scrolling', async () => {
  const { page } = studio;
  await page.setViewportSize({ width: 1024, height: 700 });
  await open(page, 'keys');
  const keys = new KeysPage(page);
  await keys.create('a laptop-width key', 'illustration');
  const row = keys.row('a laptop-width key');
  const wrap = page.locator('.table-wrap', { has: page.getByTestId('keys-table') });
  expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
  for (const id of ['key-status', 'key-spend', 'key-edit', 'key-disable', 'key-delete']) {
    await expect(row.getByTestId(id)).toBeInViewport({ ratio: 1 });
  }
  // The columns left out at this width still say what they held: prefix and group under the name.
  await expect(row.locator('th')).toContainText('illustration');
  await expect(row.locator('th')).toContainText(/atl_\w+…/);
  await studio.screenshot('keys-1024x700');
  await page.setViewportSize({ width: 1440, height: 900 });
  // At the usual width every column is there, with plain headings and the engineer's word as a tip.
  await expect(page.getByRole('columnheader', { name: 'At once' })).toHaveAttribute(
    'title',
    /Concurrency cap/,
  );
  await expect(page.getByRole('columnheader', { name: 'Group' })).toBeVisible();
});

test('the key form sets, shows and clears a key’s limits, and the gateway enforces them', async () => {
  const { page } = studio;
  await open(page, 'keys');
  await page.getByTestId('create-key').click();
  const form = page.getByTestId('key-form');
  await page.getByTestId('key-name').fill('limited e2e');
  await expect(page.getByTestId('key-budget-period')).toBeDisabled();
  await page.getByTestId('key-budget').fill('ten');
  await page.getByTestId('key-rpm').fill('0');
  await page.getByTestId('key-submit').click();
  await expect(form).toContainText('Dollars above zero');
  await expect(form).toContainText('A whole number from 1');

  await page.getByTestId('key-budget').fill('2.50');
  await page.getByTestId('key-budget-period').selectOption('day');
  await page.getByTestId('key-rpm').fill('1');
  await page.getByTestId('key-images-per-day').fill('40');
  await page.getByTestId('key-expires').fill('2031-03-01');
  await page.getByTestId('key-submit').click();
  const dialog = page.getByTestId('new-key');
  const secret = await dialog.getByRole('textbox', { name: 'Your new API key' }).inputValue();
  await dialog.getByTestId('new-key-done').click();
  const keys = new KeysPage(page);
  await expect(keys.row('limited e2e')).toBeVisible();

  const listed = async () => {
    const all = await page.evaluate(async () => {
      const res = await fetch('/api/admin/keys', { headers: { 'x-atelier-studio': '1' } });
      return ((await res.json()) as { keys: Array<Record<string, unknown>> }).keys;
    });
    return all.find((k) => k.name === 'limited e2e')!;
  };
  expect(await listed()).toMatchObject({
    budgetMicros: 2_500_000,
    budgetPeriod: 'day',
    rpmLimit: 1,
    imagesPerDay: 40,
    expiresAt: Date.UTC(2031, 2, 1),
  });

  const body = {
    model: 'image-model-2',
    prompt: 'A lighthouse at dusk',
    size: '1024x1024',
    quality: 'low',
  };
  expect((await studio.v1('/images/generations', secret, body)).status).toBe(200);
  const limited = await studio.v1('/images/generations', secret, body);
  expect(limited.status).toBe(429);
  expect(limited.json).toMatchObject({
    error: { code: 'rate_limit_exceeded', limit: { name: 'requests_per_minute', limit: 1 } },
  });

  // The edit form shows the limits as set; emptying a field clears that limit.
  await keys.row('limited e2e').getByTestId('key-edit').click();
  await expect(page.getByTestId('key-budget')).toHaveValue('2.5');
  await expect(page.getByTestId('key-budget-period')).toHaveValue('day');
  await expect(page.getByTestId('key-expires')).toHaveValue('2031-03-01');
  await page.getByTestId('key-rpm').fill('');
  await page.getByTestId('key-budget').fill('');
  await page.getByTestId('key-submit').click();
  await expect(form).toHaveCount(0);
  expect(await listed()).toMatchObject({
    budgetMicros: null,
    budgetPeriod: null,
    rpmLimit: null,
    imagesPerDay: 40,
  });
  expect((await studio.v1('/images/generations', secret, body)).status).toBe(200);
});
