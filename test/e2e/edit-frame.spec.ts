import { expect, test, type Page } from '@playwright/test';
import { patternPng } from './support/images';
import { EditPage, open } from './support/pages';
import { useStudio } from './support/studio';
import {
  atWindowSize,
  nestedScrollAreas,
  sizeName,
  visibleBox,
  WINDOW_SIZES,
} from './support/windows';

const studio = useStudio();

/**
 * Lines the mask toolbar's controls take: its groups (and the buttons inside a wrapping group)
 * counted by where they start, a new line whenever one starts below the previous line's bottom.
 */
async function toolRows(page: Page): Promise<number> {
  return page.getByTestId('mask-toolbar').evaluate((bar) => {
    const boxes = [...bar.querySelectorAll('button, input, select')]
      .map((control) => control.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0)
      .sort((a, b) => a.top - b.top);
    let rows = 0;
    let bottom = -Infinity;
    for (const box of boxes) {
      if (box.top >= bottom - 2) {
        rows += 1;
        bottom = box.bottom;
      } else {
        bottom = Math.max(bottom, box.bottom);
      }
    }
    return rows;
  });
}

test.beforeAll(async () => {
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

/** The least width of the canvas, and the most lines of tools, at each window size. */
const EXPECTED: Record<number, { canvas: number; rows: number }> = {
  1024: { canvas: 390, rows: 4 },
  1280: { canvas: 600, rows: 2 },
  1440: { canvas: 700, rows: 2 },
  2560: { canvas: 1800, rows: 1 },
};

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} the Edit frame leaves the canvas the width: the request column narrows, the tools stay on few lines`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      const edit = new EditPage(page);
      await expect(edit.canvas()).toBeVisible();
      const canvas = await visibleBox(edit.viewport());
      const expected = EXPECTED[size.width]!;
      expect(canvas.box.width, 'the canvas, px wide').toBeGreaterThanOrEqual(expected.canvas);
      expect(await toolRows(page), 'lines of tools').toBeLessThanOrEqual(expected.rows);
      const side = await visibleBox(page.locator('.edit-side'));
      expect(side.box.width / size.width, 'share of the width the request takes').toBeLessThan(0.3);
      expect(await nestedScrollAreas(page), 'scroll areas inside scroll areas').toEqual([]);
      await studio.screenshot(`edit-frame-${size.width}`);
    });
  });
}
