import { expect, test } from '@playwright/test';
import { GeneratePage, open, type PageId } from './support/pages';
import { useStudio } from './support/studio';
import {
  atWindowSize,
  expectWhollyVisible,
  nestedScrollAreas,
  paintedBox,
  sizeName,
  visibleBox,
  WINDOW_SIZES,
} from './support/windows';

const studio = useStudio();

test.beforeAll(async () => {
  // One 1536x1024 result on Generate, the picture every size below measures.
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await page.getByTestId('param-size').selectOption('1536x1024');
  await generate.prompt().fill('A wide valley at dawn');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  await expect(generate.results().first()).toHaveJSProperty('complete', true);
});

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} Generate's result is the hero: whole, in view, as large as the window lets it be`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      await open(page, 'generate');
      const generate = new GeneratePage(page);
      const result = generate.results().first();
      await expect(result).toHaveJSProperty('complete', true);
      await expectWhollyVisible(result, 'the result');
      const painted = await paintedBox(result);
      const compose = await visibleBox(page.locator('.compose-panel'));
      // The request column is a narrow strip beside the picture, not half the page.
      expect(compose.box.width / size.width, 'share of the width the request takes').toBeLessThan(
        0.3,
      );
      // The picture takes the rest of the width, or the window's height where that binds.
      const results = await visibleBox(page.getByTestId('generate-results'));
      const byWidth = painted.width >= results.box.width - 40;
      const byHeight = painted.height >= size.height - 22 * 15;
      expect(
        byWidth || byHeight,
        `the picture (${Math.round(painted.width)}x${Math.round(painted.height)}) fills the results column (${Math.round(results.box.width)} wide) or the window's height`,
      ).toBe(true);
      if (size.width >= 2560) expect(painted.width).toBeGreaterThanOrEqual(1000);
      expect(await nestedScrollAreas(page), 'scroll areas inside scroll areas').toEqual([]);
      await studio.screenshot(`layout-generate-${size.width}`);
    });
  });

  test(`at ${sizeName(size)} "Number of images" sits beside Size, with Quality under them; narrow windows fold the rest into a drawer`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      await open(page, 'generate');
      const n = page.getByTestId('param-n');
      const sizeField = page.getByTestId('param-size');
      const quality = page.getByTestId('param-quality');
      for (const [what, locator] of [
        ['Number of images', n],
        ['Size', sizeField],
        ['Quality', quality],
      ] as const) {
        await expectWhollyVisible(locator, what);
      }
      const nBox = await visibleBox(n);
      const sizeBox = await visibleBox(sizeField);
      const qualityBox = await visibleBox(quality);
      expect(Math.abs(nBox.box.y - sizeBox.box.y), 'Number and Size on one line').toBeLessThan(12);
      expect(nBox.box.x).toBeGreaterThan(sizeBox.box.x + sizeBox.box.width - 1);
      expect(qualityBox.box.y).toBeGreaterThan(sizeBox.box.y);
      expect(qualityBox.box.y - sizeBox.box.y, 'Quality right under them').toBeLessThan(160);

      const drawer = page.getByTestId('params-more');
      if (size.width < 1440) {
        // Folded: the model and the rest wait in the drawer until asked for.
        await expect(page.getByTestId('param-model')).toBeHidden();
        await page.getByTestId('params-more-toggle').click();
        await expect(page.getByTestId('param-model')).toBeVisible();
        await page.getByTestId('params-more-toggle').click();
        await expect(page.getByTestId('param-model')).toBeHidden();
      } else {
        await expect(drawer).toHaveCount(0);
        await expect(page.getByTestId('param-model')).toBeVisible();
      }
    });
  });
}

const PAGES_TO_SCROLL: PageId[] = [
  'home',
  'generate',
  'edit',
  'usage',
  'keys',
  'accounts',
  'server',
  'settings',
];

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} every page has one scroll area: none inside another, and no page cap at 2560`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      for (const id of PAGES_TO_SCROLL) {
        await open(page, id);
        expect(await nestedScrollAreas(page), `${id}: scroll areas inside scroll areas`).toEqual(
          [],
        );
        // The page uses the window's width: nothing holds it to 96rem.
        const root = await visibleBox(page.getByTestId(`page-${id}`));
        const main = await visibleBox(page.locator('#content'));
        expect(root.box.width, `${id}: the page's width in the main area`).toBeGreaterThan(
          main.box.width - 80,
        );
      }
    });
  });
}
