import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { createKey, generate, settled, type MadeImage } from './support/api';
import { open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();
const made: MadeImage[] = [];
let keyId = '';

test.beforeAll(async () => {
  const app = await createKey(studio, 'usage app');
  const other = await createKey(studio, 'other app');
  keyId = app.id;
  made.push(await generate(studio, app.key, 'A paper boat on a pond'));
  made.push(
    await generate(studio, app.key, 'A paper crane', { size: '1024x1536', quality: 'medium' }),
  );
  await generate(studio, other.key, 'Something else entirely');
  await settled(studio, 'usage', 3);
});

test('the requests just made show with their tokens and cost', async () => {
  const { page } = studio;
  await open(page, 'usage');
  await expect(page.getByTestId('usage-table')).toHaveAttribute('data-total', '3');
  for (const image of made) {
    const row = page.locator(`[data-testid="usage-row"][data-request-id="${image.requestId}"]`);
    await expect(row).toHaveAttribute('data-total-tokens', String(image.usage.total_tokens));
    await expect(row.getByTestId('usage-output-tokens')).toHaveText(
      image.usage.output_tokens.toLocaleString('en-US'),
    );
    await expect(row.getByTestId('usage-cost')).toHaveText(/^\$0\.\d{4}$/);
    expect(Number(await row.getAttribute('data-cost-micros'))).toBeGreaterThan(0);
    await expect(row).toContainText('usage app');
  }
  await expect(page.getByTestId('usage-total-requests')).toContainText('3');
  await expect(page.getByTestId('chart-day').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('chart-key')).toContainText('By key');
  await studio.screenshot('usage');
});

test('filters narrow the table, and the CSV export carries the same filters', async () => {
  const { page } = studio;
  await open(page, 'usage');
  await page.getByTestId('usage-filter-key').selectOption({ label: 'usage app' });
  await expect(page.getByTestId('usage-table')).toHaveAttribute('data-total', '2');
  await expect(page.getByTestId('usage-row')).toHaveCount(2);
  await page.getByTestId('usage-filter-status').selectOption('error');
  await expect(page.getByTestId('usage-table')).toHaveAttribute('data-total', '0');
  await page.getByTestId('usage-filter-status').selectOption('');

  const href = await page.getByTestId('usage-csv').getAttribute('href');
  expect(href).toContain(`apiKeyId=${keyId}`);
  // The browser downloads it as a person's click would: the cookie and Sec-Fetch-Site let it in.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('usage-csv').click(),
  ]);
  expect(download.suggestedFilename()).toBe('atelier-usage.csv');
  const lines = fs
    .readFileSync((await download.path())!, 'utf8')
    .trim()
    .split('\r\n');
  expect(lines[0]).toContain('request_id');
  expect(lines).toHaveLength(3);
  for (const image of made) expect(lines.some((l) => l.includes(image.requestId))).toBe(true);
});
