import { expect, test } from '@playwright/test';
import { createKey, generate } from './support/api';
import { open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('the server page gives the /v1 address, snippets without the key, and a live request log', async () => {
  const { page, server } = studio;
  const { id, key } = await createKey(studio, 'snippet app');
  await open(page, 'server');
  await expect(page.getByRole('textbox', { name: 'Base URL for OpenAI clients' })).toHaveValue(
    `${server.url}/v1`,
  );
  await page.getByTestId('snippet-key').selectOption(id);
  const curl = page.locator('pre[aria-label="curl"]');
  await expect(curl).toContainText('Authorization: Bearer $ATELIER_KEY');
  await expect(curl).toContainText('key "snippet app"');
  await expect(page.locator('pre[aria-label="openai-node"]')).toContainText(
    'apiKey: process.env.ATELIER_KEY',
  );
  await expect(page.locator('main')).not.toContainText(key);

  // A request made now appears in the log without reloading.
  await expect(page.getByTestId('log-connection')).toHaveText('Live');
  const made = await generate(studio, key, 'A lantern in the fog');
  const row = page.locator(`[data-testid="log-row"][data-request-id="${made.requestId}"]`);
  await expect(row).toContainText('snippet app');
  // A row opens to its details: the request id to quote, every token, the cost.
  await row.getByTestId('log-expand').click();
  const details = page.locator(`#log-details-${made.requestId}`);
  await expect(details.locator('[data-fact="request"]')).toContainText(made.requestId);
  await expect(details.locator('[data-fact="tokens"]')).toContainText(
    `${made.usage.output_tokens.toLocaleString('en-US')} out`,
  );
  await studio.screenshot('server-log');
});

test('settings save, survive a reload, and a refused value is explained beside its field', async () => {
  const { page } = studio;
  await open(page, 'settings');
  const origins = page.getByTestId('setting-allowedOrigins');

  // The API refuses an origin with a path; its 400 names the field and the line.
  studio.allowConsole(/status of 400/);
  await origins.fill('http://localhost:5173\nhttp://localhost:3000/app');
  await page.getByTestId('settings-save').click();
  const field = page.locator('.field', { has: origins });
  await expect(field.locator('.field-error')).toContainText('Line 2');
  await expect(origins).toHaveAttribute('aria-invalid', 'true');

  await origins.fill('http://localhost:5173\nhttp://localhost:3000');
  await page.getByTestId('setting-strictDelivery').click();
  await page.getByTestId('setting-timeoutLarge').fill('900');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-state')).toContainText('Saved');
  await studio.screenshot('settings-saved');

  await page.reload();
  await open(page, 'settings');
  await expect(origins).toHaveValue('http://localhost:5173\nhttp://localhost:3000');
  await expect(page.getByTestId('setting-timeoutLarge')).toHaveValue('900');
  const saved = await studio.admin<{
    settings: { allowedOrigins: string[]; timeoutLargeMs: number };
  }>('GET', '/api/admin/settings');
  expect(saved.settings.allowedOrigins).toEqual(['http://localhost:5173', 'http://localhost:3000']);
  expect(saved.settings.timeoutLargeMs).toBe(900_000);
});

test('the address is saved for the next start, and a port that is not one is refused', async () => {
  const { page, server } = studio;
  await open(page, 'settings');
  const port = page.getByTestId('setting-serverPort');
  const hint = page.getByTestId('server-facts-hint');

  await port.fill('80000');
  await page.getByTestId('settings-save').click();
  await expect(page.locator('.field', { has: port }).locator('.field-error')).toContainText(
    'A port from 1 to 65535',
  );

  await port.fill('9311');
  await page.getByTestId('setting-serverHost').getByRole('radio', { name: '::1 (IPv6)' }).check();
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-state')).toContainText('Saved');
  await expect(hint).toContainText('Saved: Atelier listens on [::1]:9311 from its next start');
  // Plain words first in the labels; the engineer's word leads the hint.
  const fieldWith = (testId: string) =>
    page
      .locator('.field, .segmented-field')
      .filter({ has: page.getByTestId(testId) })
      .or(page.locator(`.segmented-field[data-testid="${testId}"]`))
      .first();
  for (const [testId, plain, term] of [
    ['setting-serverHost', 'Listen on', 'bind address'],
    ['setting-strictDelivery', 'Refuse an image of another size than asked', 'Strict delivery:'],
    ['setting-fallbackLadder', 'Step down instead of failing, for every key', 'Fallback ladder:'],
    ['setting-contentFilter', 'Check prompts before sending', 'Content pre-filter:'],
    ['setting-timeoutNormal', 'Wait for an image up to 2560x1440 (seconds)', 'Upstream timeout:'],
    ['setting-allowedOrigins', 'Web pages that may call Atelier', 'Allowed browser origins'],
  ] as const) {
    await expect(fieldWith(testId)).toContainText(plain);
    await expect(fieldWith(testId).locator('.field-hint')).toContainText(term);
  }
  // The Port field itself says why its number is not the one in the address bar.
  const servingPort = new URL(server.url).port;
  await expect(page.locator('.field', { has: port }).locator('.field-hint')).toHaveText(
    `Saved for the next start; now serving on ${servingPort}.`,
  );
  // This run keeps its address: the studio still talks to the same server.
  await expect(page.getByTestId('server-facts')).toContainText(server.url);
  const saved = await studio.admin<{ settings: { serverHost: string; serverPort: number } }>(
    'GET',
    '/api/admin/settings',
  );
  expect(saved.settings).toMatchObject({ serverHost: '::1', serverPort: 9311 });
  await studio.screenshot('settings-address');

  // Back to the defaults, so the address the hint speaks of is the one in use again.
  await studio.admin('PUT', '/api/admin/settings', { serverHost: '127.0.0.1', serverPort: 8787 });
});

test('a price edited in the table prices the next request', async () => {
  const { page } = studio;
  const { key } = await createKey(studio, 'price app');
  // Usage records are written just after the reply: wait for this one to be there.
  const costOf = async (requestId: string) => {
    let cost = -1;
    await expect
      .poll(async () => {
        const { records } = await studio.admin<{
          records: Array<{ requestId: string; costMicros: number }>;
        }>('GET', '/api/admin/usage?limit=20');
        cost = records.find((r) => r.requestId === requestId)?.costMicros ?? -1;
        return cost;
      })
      .toBeGreaterThan(0);
    return cost;
  };
  const before = await costOf((await generate(studio, key, 'Same prompt')).requestId);
  await open(page, 'settings');
  const row = page.locator('[data-testid="price-row"][data-model="image-model-2"]');
  // Each model says what it is under its id.
  await expect(row.getByTestId('model-description')).toContainText('newest version');
  await row.getByTestId('price-imageOutput').fill('60.00');
  await row.getByTestId('price-save').click();
  await expect(row.getByTestId('price-save')).toBeDisabled();
  const { prices } = await studio.admin<{ prices: Array<{ model: string; imageOutput: string }> }>(
    'GET',
    '/api/admin/prices',
  );
  expect(prices.find((p) => p.model === 'image-model-2')?.imageOutput).toBe('60.00');
  // Image output tokens are most of the bill: at twice the price, the same request costs more.
  const after = await costOf((await generate(studio, key, 'Same prompt')).requestId);
  expect(after).toBeGreaterThan(before * 1.5);

  // A value that is not dollars is refused before it is sent.
  await row.getByTestId('price-textInput').fill('cheap');
  await row.getByTestId('price-save').click();
  await expect(row).toContainText('Dollars per 1M tokens');
});
