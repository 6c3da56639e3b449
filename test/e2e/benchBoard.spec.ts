import { expect, test, type Page } from '@playwright/test';
import type { Board } from '../../src/shared/admin';
import { percentile, recordMetric } from './support/metrics';
import { open } from './support/pages';
import { seedGallery } from './support/seedGallery';
import { useStudio } from './support/studio';

// A board's first paint for the benchmark report (issue 22: a board of 5,000 images under
// 500 ms), recorded, not asserted against a clock. The gallery holds 10,000 images; the board the
// 5,000 oldest, so its first screen's thumbnails are not the ones "All" already loaded.
const GALLERY_SIZE = 10_000;
const BOARD_SIZE = 5_000;
const studio = useStudio({ seed: (dataDir) => seedGallery(dataDir, GALLERY_SIZE) });

/** The seeded ids (seedGallery's naming), oldest `count` of them. */
const oldest = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `img_seed${String(GALLERY_SIZE - count + i).padStart(6, '0')}`,
  );

/**
 * From a click on the board's chip until every tile in view is one of the board's images with
 * its thumbnail loaded, then one more frame for it to be painted (ms on the page's clock).
 */
function boardPaint(page: Page, boardId: string, firstBoardIndex: number) {
  return page.evaluate(
    ({ boardId, firstBoardIndex }) =>
      new Promise<{ painted: number; firstTile: number; rendered: number; visible: number }>(
        (resolve) => {
          const t0 = performance.now();
          document
            .querySelector<HTMLElement>(`[data-testid="board-chip"][data-board-id="${boardId}"]`)!
            .click();
          const onBoard = (tile: HTMLElement) =>
            Number((tile.dataset.imageId ?? '').replace('img_seed', '')) >= firstBoardIndex;
          let firstTile = 0;
          const tick = () => {
            const grid = document.querySelector<HTMLElement>('[data-testid="gallery-grid"]');
            const tiles = grid
              ? Array.from(grid.querySelectorAll<HTMLElement>('[data-testid="gallery-tile"]'))
              : [];
            if (!firstTile && tiles.length > 0 && tiles.every(onBoard)) {
              firstTile = performance.now() - t0;
            }
            const box = grid?.getBoundingClientRect();
            const visible = box
              ? tiles.filter((t) => {
                  const r = t.getBoundingClientRect();
                  return r.bottom > box.top && r.top < box.bottom;
                })
              : [];
            if (
              visible.length > 0 &&
              visible.every((t) => onBoard(t) && t.dataset.loaded === 'true')
            ) {
              requestAnimationFrame(() =>
                resolve({
                  painted: performance.now() - t0,
                  firstTile,
                  rendered: tiles.length,
                  visible: visible.length,
                }),
              );
            } else requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        },
      ),
    { boardId, firstBoardIndex },
  );
}

test('a board of 5,000 images: first paint', async () => {
  const { page } = studio;
  const { board } = await studio.admin<{ board: Board }>('POST', '/api/admin/boards', {
    name: 'Five thousand',
  });
  const ids = oldest(BOARD_SIZE);
  for (let i = 0; i < ids.length; i += 500) {
    await studio.admin('POST', `/api/admin/boards/${board.id}/images`, {
      imageIds: ids.slice(i, i + 500),
    });
  }
  await open(page, 'gallery');
  const chip = page.locator(`[data-testid="board-chip"][data-board-id="${board.id}"]`);
  await expect(chip).toHaveAttribute('data-count', String(BOARD_SIZE));
  await expect(page.getByTestId('gallery-tile').first()).toHaveAttribute('data-loaded', 'true');

  const runs = [];
  for (let i = 0; i < 4; i++) {
    runs.push(await boardPaint(page, board.id, GALLERY_SIZE - BOARD_SIZE));
    await page.getByTestId('board-all').click();
    await expect(page.getByTestId('gallery-tile').first()).toHaveAttribute(
      'data-image-id',
      'img_seed000000',
    );
  }
  // Virtualised: a screenful of tiles in the DOM, whatever the board's size.
  for (const run of runs) expect(run.rendered).toBeLessThan(150);
  recordMetric(
    'board.firstPaint',
    {
      images: BOARD_SIZE,
      galleryImages: GALLERY_SIZE,
      coldCacheMs: runs[0]!.painted,
      warmMedianMs: percentile(
        runs.slice(1).map((r) => r.painted),
        50,
      ),
      firstTileMs: runs[0]!.firstTile,
      tilesInDom: runs[0]!.rendered,
      tilesInView: runs[0]!.visible,
    },
    'a click on a board of 5,000 images (the oldest of 10,000) until every thumbnail in view is loaded and painted',
  );
  await studio.screenshot('board-5000');
});
