import { expect, test } from '@playwright/test';
import type { UsageTotal } from '../../src/shared/admin';
import { settled } from './support/api';
import { GeneratePage, open, ready } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('home is an artist’s: recent images, continue the last run, today’s spend, no wall of curl', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A kingfisher over a still pond');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  await settled(studio, 'images', 1);
  // Another prompt in the form: Continue brings back the last run's.
  await generate.prompt().fill('Something else entirely');

  const home = await open(page, 'home');
  await expect(home.getByTestId('home-recent-image')).toHaveCount(1);
  const midnight = await page.evaluate(() => {
    const now = new Date();
    return new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  });
  const { rows } = await studio.admin<{ rows: UsageTotal[] }>(
    'GET',
    `/api/admin/usage/totals?since=${midnight}`,
  );
  expect(rows[0]!.costMicros).toBeGreaterThan(0);
  await expect(home.getByTestId('home-spend-today').locator('[data-cost-micros]')).toHaveAttribute(
    'data-cost-micros',
    String(rows[0]!.costMicros),
  );
  await expect(home).not.toContainText('curl');
  await expect(home.getByTestId('home-other-apps').getByRole('textbox')).toHaveValue(/\/v1$/);
  await studio.screenshot('home');

  await home.getByTestId('home-continue-run').click();
  await ready(page, 'generate');
  await expect(generate.prompt()).toHaveValue('A kingfisher over a still pond');
});
