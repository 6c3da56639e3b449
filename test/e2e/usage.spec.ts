import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import type { UsageListResponse } from '../../src/shared/admin';
import {
  createKey,
  generate,
  scriptFaults,
  settled,
  upstreamReceived,
  type MadeImage,
} from './support/api';
import { choose, open } from './support/pages';
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

test('a refused request opens to say why, and the table fits without scrolling sideways', async () => {
  const { page } = studio;
  const app = await createKey(studio, 'careless app');
  const refused = await studio.v1('/images/generations', app.key, {
    model: 'image-model-2',
    prompt: 'A size off the grid',
    size: '1000x1000',
  });
  expect(refused.status).toBe(400);
  await settled(studio, 'usage', 4);
  // Coming back to the page loads it afresh (its key list now has the new key).
  await open(page, 'home');
  await open(page, 'usage');
  await page.getByTestId('usage-filter-key').selectOption({ label: 'careless app' });
  const row = page.locator(`[data-testid="usage-row"][data-request-id="${refused.requestId}"]`);
  await expect(row).toContainText('invalid_size');
  // Every column, cost included, is in view at the studio's usual width.
  const wrap = page.locator('.table-wrap', { has: page.getByTestId('usage-table') });
  expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);

  await row.getByTestId('usage-expand').click();
  await expect(row.getByTestId('usage-expand')).toHaveAttribute('aria-expanded', 'true');
  const details = page.locator(`#usage-details-${refused.requestId}`);
  await expect(details.locator('[data-fact="error"]')).toContainText(
    'invalid_size: size 1000x1000: width and height must each be a multiple of 16 px',
  );
  await expect(details.locator('[data-fact="request"]')).toContainText(refused.requestId!);
  await expect(details.locator('[data-fact="key"]')).toContainText('careless app');
  await studio.screenshot('usage-request-details');
  await row.getByTestId('usage-expand').click();
  await expect(details).toHaveCount(0);
});

test('at 1280 and 1024 the cost column stays in view: secondary columns give way first', async () => {
  const { page } = studio;
  for (const [width, height] of [
    [1280, 800],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width, height });
    await open(page, 'home');
    await open(page, 'usage');
    const wrap = page.locator('.table-wrap', { has: page.getByTestId('usage-table') });
    await expect(page.getByTestId('usage-row').first()).toBeVisible();
    expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
    const row = page.getByTestId('usage-row').first();
    // The table is under the charts: scrolled to, the whole row is in view, cost included.
    await row.scrollIntoViewIfNeeded();
    for (const id of ['usage-cost', 'usage-output-tokens', 'usage-expand']) {
      await expect(row.getByTestId(id)).toBeInViewport({ ratio: 1 });
    }
    await expect(page.getByRole('columnheader', { name: 'Account' })).toBeHidden();
    // What the narrow table leaves out is in the row's details.
    await row.getByTestId('usage-expand').click();
    const id = await row.getAttribute('data-request-id');
    await expect(page.locator(`#usage-details-${id} [data-fact="account"]`)).toBeVisible();
    await row.getByTestId('usage-expand').click();
    await studio.screenshot(`usage-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'home');
  await open(page, 'usage');
  await expect(page.getByRole('columnheader', { name: 'Account' })).toBeVisible();
});

test('request details show the prompt and the kept image (opening the viewer), dated times, and a caller who left after its image was made as delivered', async () => {
  const { page } = studio;
  // A caller that leaves while its image is being made: the gateway still makes, bills and keeps it.
  const leaver = await createKey(studio, 'impatient app');
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 1500 }]);
  const controller = new AbortController();
  const pending = fetch(`${studio.server.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${leaver.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'image-model-2',
      prompt: 'A kite let go over the sea',
      size: '1024x1024',
      quality: 'low',
    }),
    signal: controller.signal,
  }).catch((error: unknown) => error);
  await upstreamReceived(studio, 'A kite let go over the sea');
  controller.abort();
  expect(await pending).toBeInstanceOf(Error);
  let leftId = '';
  await expect
    .poll(async () => {
      const list = await studio.admin<UsageListResponse>(
        'GET',
        `/api/admin/usage?apiKeyId=${leaver.id}`,
      );
      leftId = list.records[0]?.requestId ?? '';
      return list.records.map((r) => [r.status, r.images, r.keptImageIds.length]);
    })
    .toEqual([[499, 1, 1]]);

  for (const [width, height] of [
    [1280, 800],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width, height });
    await open(page, 'home');
    await open(page, 'usage');
    await expect(page.getByTestId('usage-range-choice')).toBeVisible();

    // The 7-day view (the default) dates every time, today's included.
    const made0 = page.locator(
      `[data-testid="usage-row"][data-request-id="${made[0]!.requestId}"]`,
    );
    await expect(made0.getByTestId('usage-time')).toHaveText(/^(\d{4}-)?\d{2}-\d{2} \d{2}:\d{2}$/);

    // The prompt and a thumbnail of the kept image; the thumbnail opens the viewer.
    await made0.getByTestId('usage-expand').click();
    const details = page.locator(`#usage-details-${made[0]!.requestId}`);
    await expect(details.locator('[data-fact="prompt"]')).toContainText('A paper boat on a pond');
    const thumb = details.getByTestId('kept-image');
    await expect(thumb).toHaveCount(1);
    await expect(thumb.locator('img')).toHaveJSProperty('complete', true);
    expect(
      await thumb.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth),
    ).toBeGreaterThan(0);
    await thumb.scrollIntoViewIfNeeded();
    await expect(thumb).toBeInViewport({ ratio: 1 });
    const wrap = page.locator('.table-wrap', { has: page.getByTestId('usage-table') });
    expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
    await studio.screenshot(`usage-details-kept-${width}x${height}`);
    await thumb.click();
    const viewer = page.getByTestId('image-viewer');
    await expect(viewer).toBeVisible();
    await expect(viewer.locator('img').first()).toHaveJSProperty('complete', true);
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();
    await made0.getByTestId('usage-expand').click();

    // The caller who left: delivered, not a red 499; the status is still there on hover and in the details.
    const left = page.locator(`[data-testid="usage-row"][data-request-id="${leftId}"]`);
    const status = left.getByTestId('status-cell');
    await expect(status).toHaveAttribute('data-status', '499');
    await expect(status).toContainText('delivered');
    await expect(status).toContainText('client left early');
    await expect(status.locator('.status')).toHaveClass(/status-ok/);
    await expect(status.locator('.status')).toHaveAttribute('title', /HTTP 499 client_cancelled/);
    await left.getByTestId('usage-expand').click();
    const leftDetails = page.locator(`#usage-details-${leftId}`);
    await expect(leftDetails.locator('[data-fact="status"]')).toContainText('499 client_cancelled');
    await expect(leftDetails.locator('[data-fact="error"]')).toHaveCount(0);
    await expect(leftDetails.locator('[data-fact="prompt"]')).toContainText(
      'A kite let go over the sea',
    );
    await expect(leftDetails.getByTestId('kept-image')).toHaveCount(1);
    await left.getByTestId('usage-expand').click();

    // A day's view may keep the time alone for today's requests.
    await choose(page, 'usage-range-choice', '24h');
    await expect(made0.getByTestId('usage-time')).toHaveText(/^\d{2}:\d{2}:\d{2}$/);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
});
