import type { Page } from '@playwright/test';

export interface Paint {
  firstTile: number;
  painted: number;
  rendered: number;
  visible: number;
  count: number;
}

/**
 * In the page, from `start` (ms on the page's clock): polls each animation frame until the grid's
 * tiles in view all have their thumbnail loaded, then one more frame for it to be painted.
 */
export function waitForGalleryPaint(page: Page, start: 'now-click' | 'navigation'): Promise<Paint> {
  return page.evaluate(
    (mode) =>
      new Promise<Paint>((resolve) => {
        const t0 = mode === 'navigation' ? 0 : performance.now();
        if (mode === 'now-click') {
          document.querySelector<HTMLElement>('[data-testid="nav-gallery"]')!.click();
        }
        let firstTile = 0;
        const tick = () => {
          const grid = document.querySelector<HTMLElement>('[data-testid="gallery-grid"]');
          const tiles = grid
            ? Array.from(grid.querySelectorAll<HTMLElement>('[data-testid="gallery-tile"]'))
            : [];
          if (tiles.length > 0 && !firstTile) firstTile = performance.now() - t0;
          const box = grid?.getBoundingClientRect();
          const visible = box
            ? tiles.filter((t) => {
                const r = t.getBoundingClientRect();
                return r.bottom > box.top && r.top < box.bottom;
              })
            : [];
          if (visible.length > 0 && visible.every((t) => t.dataset.loaded === 'true')) {
            requestAnimationFrame(() =>
              resolve({
                firstTile,
                painted: performance.now() - t0,
                rendered: tiles.length,
                visible: visible.length,
                count: Number(grid!.dataset.count),
              }),
            );
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    start,
  );
}
