import { expect, test } from '@playwright/test';
import { open, PAGES, ready } from './support/pages';
import { useStudio } from './support/studio';
import { scrollbarWidth } from './support/windows';

const studio = useStudio();

test('every page loads, in the light and the dark theme, with no console error', async () => {
  const { page } = studio;
  for (const theme of ['light', 'dark'] as const) {
    await page
      .getByTestId('theme-switch')
      .locator('label', { hasText: theme === 'light' ? 'Light' : 'Dark' })
      .click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    for (const id of PAGES) {
      await open(page, id);
      await studio.screenshot(`${id}-${theme}`);
    }
  }
});

test('deep links and reloads open the page itself', async () => {
  const { page, server } = studio;
  await page.goto(`${server.url}/keys`);
  await ready(page, 'keys');
  await page.reload();
  await ready(page, 'keys');
});

test('the browser shows real scrollbars, as a person sees them (no --hide-scrollbars)', async () => {
  // Layout defects that only scrollbars cause (issue 22's flickering grid) must show in the suite.
  expect(await scrollbarWidth(studio.page)).toBeGreaterThan(0);
});
