import { expect, test } from '@playwright/test';
import { scriptFaults } from './support/api';
import { GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('a refused prompt says so once, in plain words, with no Retry and a compact failed slot', async () => {
  const { page } = studio;
  studio.allowConsole(/status of 4\d\d|status of 5\d\d/);
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await scriptFaults(studio, [{ kind: 'refusal' }]);
  await generate.prompt().fill('A refused prompt');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'error');
  const notice = page.getByTestId('run-error');
  await expect(notice).toHaveAttribute('data-kind', 'refused');
  await expect(notice.getByTestId('error-title')).toHaveText('The prompt was refused');
  await expect(notice).not.toContainText(/retrying may help/i);
  await expect(notice).not.toContainText(/streaming/i);
  await expect(page.getByTestId('retry')).toHaveCount(0);
  await expect(page.getByTestId('elapsed')).not.toHaveText('0.0 s');
  // The slot that got no image is a line, not an empty frame the size of the image.
  const slot = page.getByTestId('image-slot').first();
  await expect(slot).toContainText('not delivered');
  expect((await slot.getByTestId('slot-frame').boundingBox())!.height).toBeLessThan(80);
  await studio.screenshot('error-refused');
});

test('a usage limit says when it resets in local time, and offers no Retry until then', async () => {
  const { page } = studio;
  studio.allowConsole(/status of 429/);
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await scriptFaults(studio, [{ kind: 'usage_limit', resetsInSeconds: 12 * 60 + 30 }]);
  await generate.prompt().fill('A prompt past the limit');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'error');
  const notice = page.getByTestId('run-error');
  await expect(notice).toHaveAttribute('data-kind', 'limit');
  await expect(notice).toHaveAttribute('data-retry', 'later');
  // "resets at 14:09, in 12 min 29 s": the person's clock, not an ISO time in UTC. A reset that
  // falls on another day carries its date ("resets at 2026-11-25 00:11, ..."), as near midnight.
  await expect(notice).toContainText(/resets at (\d{4}-\d\d-\d\d )?\d\d:\d\d, in 1[12] min/);
  await expect(notice).not.toContainText(/\d{4}-\d\d-\d\dT/);
  await expect(notice.getByTestId('error-advice')).toContainText('Retry comes back');
  await expect(page.getByTestId('retry')).toHaveCount(0);
  await studio.screenshot('error-usage-limit');
});
