import { expect, test, type Locator } from '@playwright/test';
import { createKey, generate, settled } from './support/api';
import { open } from './support/pages';
import { useStudio } from './support/studio';
import { atWindowSize, expectWhollyVisible, sizeName, WINDOW_SIZES } from './support/windows';

const studio = useStudio();

test.beforeAll(async () => {
  // A key with a long name and spend, and requests in the log, so every column has its widest.
  const { key } = await createKey(studio, 'Illustration client, autumn catalogue');
  await generate(studio, key, 'A teapot on a windowsill');
  await settled(studio, 'usage', 1);
});

/** Every cell of the row, and everything inside them, is whole where a person sees it. */
async function rowWhole(row: Locator, what: string) {
  await expect(row).toBeVisible();
  // A person scrolls down to the row; sideways is what must never be needed.
  await row.scrollIntoViewIfNeeded();
  const cells = row.locator(':scope > td, :scope > th');
  const count = await cells.count();
  for (let i = 0; i < count; i++) {
    const cell = cells.nth(i);
    if (!(await cell.isVisible())) continue;
    await expectWhollyVisible(cell, `${what}, cell ${i + 1}`);
  }
  for (const control of await row.locator('button, input').all()) {
    if (!(await control.isVisible())) continue;
    await expectWhollyVisible(
      control,
      `${what}: ${(await control.textContent()) || (await control.getAttribute('aria-label')) || 'a control'}`,
    );
  }
}

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} Keys, the Server log and Prices keep every action and value in view`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      await open(page, 'keys');
      const keyRow = page.locator(
        '[data-testid="key-row"][data-key-name="Illustration client, autumn catalogue"]',
      );
      await rowWhole(keyRow, 'the key row');
      await expectWhollyVisible(keyRow.getByTestId('key-delete'), 'Delete');
      await expectWhollyVisible(keyRow.getByTestId('key-spend'), 'the spend');

      await open(page, 'server');
      const logRow = page.getByTestId('log-row').first();
      await rowWhole(logRow, 'the log row');

      await open(page, 'settings');
      const priceRow = page.getByTestId('price-row').first();
      await rowWhole(priceRow, 'the price row');
      await expectWhollyVisible(priceRow.getByTestId('price-save'), 'Save');
      await studio.screenshot(`actions-settings-${size.width}`);
    });
  });
}
