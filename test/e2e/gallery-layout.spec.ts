import { expect, test } from '@playwright/test';
import type { ImageRecord } from '../../src/shared/admin';
import { formatUsd } from '../../src/shared/costEstimate';
import { GalleryPage, open } from './support/pages';
import { seedGallery } from './support/seedGallery';
import { useStudio } from './support/studio';
import {
  atWindowSize,
  expectWhollyVisible,
  layoutsOverFrames,
  nestedScrollAreas,
  paintedBox,
  sizeName,
  WINDOW_SIZES,
} from './support/windows';

/**
 * Three rows of six at 1440 wide: with real scrollbars and the old layout, the grid's content
 * was a few pixels taller than its box with the scrollbar's width free and shorter with it taken,
 * so it laid itself out again every frame at window heights 898 to 906 (issue 22).
 */
const IMAGES = 18;

const studio = useStudio({ seed: (dataDir) => seedGallery(dataDir, IMAGES) });

const FRAMES = 30;

test('the grid holds still over frames at 1440 wide and heights 898 to 906, with real scrollbars', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await expect(gallery.grid()).toHaveAttribute('data-count', String(IMAGES));
  for (let height = 898; height <= 906; height++) {
    await atWindowSize(page, { width: 1440, height }, async () => {
      await expect(gallery.tiles().first()).toBeVisible();
      const layouts = await layoutsOverFrames(gallery.tiles().first(), FRAMES);
      expect(layouts, `distinct tile layouts over ${FRAMES} frames at 1440x${height}`).toBe(1);
    });
  }
});

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} the grid holds still, the page has one scroll area, the detail's image grows with the window`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      await open(page, 'gallery');
      const gallery = new GalleryPage(page);
      await expect(gallery.tiles().first()).toHaveAttribute('data-loaded', 'true');
      expect(await layoutsOverFrames(gallery.tiles().first(), FRAMES)).toBe(1);
      expect(await nestedScrollAreas(page), 'scroll areas inside scroll areas').toEqual([]);

      await gallery.tiles().first().click();
      const detail = gallery.detail();
      await expect(detail).toHaveAttribute('data-ready', 'true');
      const image = detail.getByTestId('detail-image');
      await expect(image).toHaveJSProperty('complete', true);
      await expectWhollyVisible(image, 'the detail image');
      await expectWhollyVisible(detail.getByTestId('detail-actions'), 'the detail actions');
      const painted = await paintedBox(image);
      // The seeded images are square: the picture is as tall as two fifths of the window (or as
      // wide as the detail lets it be), never the old fixed 22rem.
      expect(painted.height, 'the square picture, px high').toBeGreaterThanOrEqual(
        Math.min(size.height * 0.38, 0.3 * (size.width - 240)),
      );
      if (size.width >= 2560) expect(painted.width).toBeGreaterThanOrEqual(500);
      expect(await layoutsOverFrames(gallery.tiles().first(), FRAMES)).toBe(1);
      expect(await nestedScrollAreas(page), 'scroll areas inside scroll areas').toEqual([]);
      await studio.screenshot(`gallery-layout-${size.width}`);
      await detail.getByRole('button', { name: /close/i }).first().click();
    });
  });
}

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} each tile says its size, cost and day, on its own line within its row`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      await open(page, 'gallery');
      const gallery = new GalleryPage(page);
      await expect(gallery.tiles().first()).toHaveAttribute('data-loaded', 'true');
      const { images } = await studio.admin<{ images: ImageRecord[] }>(
        'GET',
        `/api/admin/images?limit=${IMAGES}`,
      );
      const byId = new Map(images.map((image) => [image.id, image]));
      const count = await gallery.tiles().count();
      for (let i = 0; i < Math.min(count, 8); i++) {
        const tile = gallery.tiles().nth(i);
        const image = byId.get((await tile.getAttribute('data-image-id'))!)!;
        const facts = page.getByTestId('gallery-tile-facts').nth(i);
        const spans = await facts.locator('span').allTextContents();
        expect(spans).toEqual([
          `${image.width}x${image.height}`,
          formatUsd(image.costMicros),
          dayOf(image.createdAt),
        ]);
        // The size and the cost are never cut off; the whole line sits under its own tile.
        await expectWhollyVisible(facts.locator('span').nth(0), 'the tile size');
        await expectWhollyVisible(facts.locator('span').nth(1), 'the tile cost');
        const [thumb, line] = await Promise.all([tile.boundingBox(), facts.boundingBox()]);
        expect(line!.y).toBeGreaterThanOrEqual(thumb!.y + thumb!.height);
        expect(line!.x + line!.width).toBeLessThanOrEqual(thumb!.x + thumb!.width + 0.5);
      }
      // The next row starts below the facts line of the row above.
      const columns = await gallery
        .grid()
        .evaluate((grid) => Number(grid.getAttribute('data-columns')));
      if (count > columns && columns > 0) {
        const below = await gallery.tiles().nth(columns).boundingBox();
        const line = await page.getByTestId('gallery-tile-facts').first().boundingBox();
        expect(below!.y).toBeGreaterThanOrEqual(line!.y + line!.height);
      }
    });
  });
}

/** The day as the studio writes it: local "YYYY-MM-DD" (the browser and this runner share TZ). */
function dayOf(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
