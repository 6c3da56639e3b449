import { expect, test } from '@playwright/test';
import { scriptFaults } from './support/api';
import { patternPng } from './support/images';
import { EditPage, GeneratePage, open, type PageId } from './support/pages';
import { useStudio } from './support/studio';
import { atWindowSize, expectClickable, sizeName, WINDOW_SIZES } from './support/windows';

const studio = useStudio();

test.beforeAll(async () => {
  // The Edit page with its canvas up, the page the notice used to hide behind.
  const { page } = studio;
  await open(page, 'edit');
  const edit = new EditPage(page);
  await edit.fileInput().setInputFiles({
    name: 'pattern.png',
    mimeType: 'image/png',
    buffer: await patternPng(1536, 1024),
  });
  await expect(edit.canvas()).toBeVisible();
});

for (const size of WINDOW_SIZES) {
  for (const elsewhere of ['edit', 'usage'] as PageId[]) {
    test(`at ${sizeName(size)} the "run finished" notice floats above ${elsewhere} and takes the click`, async () => {
      const { page } = studio;
      await atWindowSize(page, size, async () => {
        await open(page, 'generate');
        const generate = new GeneratePage(page);
        await scriptFaults(studio, [{ kind: 'slow', delayMs: 3_000 }]);
        await generate.prompt().fill(`A harbour at dusk, landing on ${elsewhere}`);
        await generate.submit().click();
        await expect(generate.status()).toHaveAttribute('data-phase', 'running');
        await open(page, elsewhere);
        if (elsewhere === 'edit') await expect(new EditPage(page).canvas()).toBeVisible();
        else await expect(page.getByTestId('chart-day')).toBeVisible();

        const landed = page.getByTestId('run-landed');
        await expect(landed).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
        // What a person's click at the notice reaches: the notice, not the page under it.
        await expectClickable(landed.locator('span').first(), 'the notice text');
        await expectClickable(landed.getByTestId('run-landed-open'), 'Open Generate');
        await studio.screenshot(`run-notice-${elsewhere}-${size.width}`);
        await landed.getByTestId('run-landed-open').click();
        await expect(page.getByTestId('page-generate')).toBeVisible();
        await expect(landed).toHaveCount(0);
      });
    });
  }
}
