import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { checkDimensions } from '../../src/shared/sizeRules';
import {
  decodePixels,
  drag,
  markedInColumn,
  overlayAt,
  penStroke,
  upstreamEditInputs,
  type Pixels,
} from './support/canvas';
import { patternPng, rgba } from './support/images';
import { choose, EditPage, open } from './support/pages';
import { useStudio } from './support/studio';
import { atWindowSize, expectWhollyVisible, sizeName, WINDOW_SIZES } from './support/windows';

// Issue 22, Build 2 and defects 5 and 13: outpainting, selections, the overlay's colour, the
// carried mask's choice, edit layers and pen pressure, checked in the pixels the upstream got.
const studio = useStudio();
const W = 1024;
const H = 768;

/** Share of the mask's pixels that are clear (alpha 0: change). */
function clearShare(mask: Pixels): number {
  let clear = 0;
  for (let i = 3; i < mask.data.length; i += 4) if (mask.data[i] === 0) clear++;
  return clear / (mask.width * mask.height);
}

/** The edit's run is over: its status reads done, and so does the note under the button. */
async function finished(page: EditPage['page']) {
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-phase', 'done', {
    timeout: 30_000,
  });
  await expect(page.getByTestId('edit-run-note')).toHaveAttribute('data-phase', 'done');
}

test('outpainting: sizes checked as they are dragged, the original at its anchor, the new area transparent in the image and the mask sent; the result at canvas size with a wipe', async () => {
  const { page } = studio;
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'edit');
  const edit = new EditPage(page);
  const original = await patternPng(W, H);
  await edit
    .fileInput()
    .setInputFiles({ name: 'pattern.png', mimeType: 'image/png', buffer: original });
  await expect(edit.canvas()).toHaveJSProperty('width', W);

  await page.getByTestId('outpaint-open').locator('summary').click();
  const size = page.getByTestId('outpaint-size');
  // Dragged to 1500 px: not a multiple of 16, so it snaps to the next one up.
  await page.getByTestId('outpaint-width').fill('1500');
  await expect(size).toHaveAttribute('data-rule', 'multiple_of_16');
  await expect(size).toHaveAttribute('data-width', '1504');
  // Wider than 3:1: the short edge grows to keep the ratio.
  await page.getByTestId('outpaint-width').fill('3840');
  await expect(size).toHaveAttribute('data-rule', 'aspect_ratio');
  await expect(size).toHaveAttribute('data-height', '1280');
  await page.getByTestId('outpaint-width').fill('1536');
  await page.getByTestId('outpaint-height').fill('1024');
  await expect(size).toHaveAttribute('data-rule', '');
  await expect(size).toHaveAttribute('data-width', '1536');
  await expect(size).toHaveAttribute('data-height', '1024');
  await page.locator('[data-testid="outpaint-anchor"][data-anchor="0,0.5"]').click();

  await edit.prompt().fill('Extend the meadow to the right');
  const sentAt = Date.now();
  await page.getByTestId('outpaint-send').click();
  const { image, mask } = await upstreamEditInputs(studio, sentAt);
  await finished(page);
  expect([image.width, image.height]).toEqual([1536, 1024]);
  expect(checkDimensions(image.width, image.height)).toBeNull();
  expect(mask && [mask.width, mask.height]).toEqual([1536, 1024]);
  // The original's pixels at the left, centred in height (y 128..895), exactly as they were;
  // everything else transparent in the image and clear in the mask.
  const source = await rgba(original);
  const top = (1024 - H) / 2;
  let differing = 0;
  for (let y = 0; y < 1024; y++) {
    for (let x = 0; x < 1536; x++) {
      const inside = x < W && y >= top && y < top + H;
      const got = image.at(x, y);
      const keep = mask!.at(x, y)[3];
      if (inside) {
        const i = ((y - top) * W + x) * 4;
        const want = [source.data[i], source.data[i + 1], source.data[i + 2], 255];
        if (got.some((v, k) => v !== want[k]) || keep !== 255) differing++;
      } else if (got[3] !== 0 || keep !== 0) {
        differing++;
      }
    }
  }
  expect(differing).toBe(0);

  // Defect 5: the result shows at the canvas's size, over its source with a wipe.
  const compare = page.getByTestId('compare');
  await expect(compare).toHaveAttribute('data-mode', 'wipe');
  const after = page.getByTestId('compare-after');
  await expect(after).toBeVisible();
  // Not a thumbnail (126 x 83 before, 78 x 52 side by side at 1024): about as big as the canvas
  // the artist painted on, at each window size, and whole in the window.
  for (const size of WINDOW_SIZES) {
    await atWindowSize(page, size, async () => {
      const shown = (await after.boundingBox())!;
      await expectWhollyVisible(after, `the result at ${sizeName(size)}`);
      await choose(page, 'edit-view', 'mask');
      const canvasBox = (await edit.canvas().boundingBox())!;
      await choose(page, 'edit-view', 'result');
      const at = `at ${sizeName(size)}: result ${shown.width}x${shown.height}, canvas ${canvasBox.width}x${canvasBox.height}`;
      expect(shown.width, at).toBeGreaterThanOrEqual(canvasBox.width * 0.8);
      expect(shown.height, at).toBeGreaterThanOrEqual(canvasBox.height * 0.8);
    });
  }
  // The source covers the left of the line, the result shows right of it.
  const before = page.getByTestId('compare-before');
  await expect(before).toHaveCSS('clip-path', 'inset(0px 50% 0px 0px)');
  await page.getByTestId('compare-wipe').fill('20');
  await expect(before).toHaveCSS('clip-path', 'inset(0px 80% 0px 0px)');
  expect(await before.boundingBox()).toEqual(await after.boundingBox());
});

test('"Edit this result" asks about the carried mask; a rectangle added and a lasso cut out make the mask the upstream receives, in the chosen overlay colour', async () => {
  const { page } = studio;
  const edit = new EditPage(page);
  await page.getByTestId('edit-result').first().click();
  await expect(page.getByTestId('mask-carried')).toBeVisible();
  expect(await edit.changedPercent()).toBeGreaterThan(30);
  await page.getByTestId('mask-start-clean').click();
  await expect(page.getByTestId('mask-carried')).toHaveCount(0);
  await expect(edit.share()).toContainText('Nothing painted');
  // The image about to be sent is the outpaint's result, as the gallery keeps it.
  const reference = edit.references().first();
  await expect(reference).toHaveAttribute('data-gallery-id', /.+/, { timeout: 20_000 });
  const galleryId = await reference.getAttribute('data-gallery-id');
  const sent = await studio.adminBytes(`/api/admin/images/${galleryId}/file`);

  await page.getByTestId('overlay-colour').fill('#00c8ff');
  await choose(page, 'mask-tool', 'rect');
  // While dragged, the marching ants sit exactly where the pointer drew them over the image
  // (drawn in the viewport's pixels, outside the zoomed stage).
  const box = (await edit.canvas().boundingBox())!;
  await page.mouse.move(box.x + 0.1 * box.width, box.y + 0.1 * box.height);
  await page.mouse.down();
  await page.mouse.move(box.x + 0.6 * box.width, box.y + 0.7 * box.height, { steps: 4 });
  // The outline's geometry in page pixels (a box from layout would add the stroke's miter).
  const ants = await page
    .getByTestId('selection-outline')
    .locator('polygon.ants')
    .evaluate((polygon: SVGPolygonElement) => {
      const m = polygon.getScreenCTM()!;
      const b = polygon.getBBox();
      return {
        x: m.e + b.x * m.a,
        y: m.f + b.y * m.d,
        width: b.width * m.a,
        height: b.height * m.d,
      };
    });
  expect(Math.abs(ants.x - (box.x + 0.1 * box.width))).toBeLessThan(1);
  expect(Math.abs(ants.y - (box.y + 0.1 * box.height))).toBeLessThan(1);
  expect(Math.abs(ants.x + ants.width - (box.x + 0.6 * box.width))).toBeLessThan(1);
  expect(Math.abs(ants.y + ants.height - (box.y + 0.7 * box.height))).toBeLessThan(1);
  await page.mouse.up();
  await expect(page.getByTestId('selection-outline')).toHaveCount(0);
  await page.getByTestId('mask-undo').click();
  await expect(edit.share()).toContainText('Nothing painted');
  await drag(page, edit.canvas(), [
    [0.1, 0.1],
    [0.6, 0.7],
  ]);
  await choose(page, 'mask-tool', 'lasso');
  await drag(
    page,
    edit.canvas(),
    [
      [0.2, 0.2],
      [0.5, 0.2],
      [0.35, 0.6],
      [0.2, 0.2],
    ],
    true,
  );
  // Cyan where the change is, nothing where the lasso cut and outside.
  const [inRect, inCut, outside] = await overlayAt(page, [
    [0.15, 0.65],
    [0.35, 0.3],
    [0.8, 0.8],
  ]);
  expect(inRect).toEqual([0, 200, 255, 140]);
  expect(inCut![3]).toBe(0);
  expect(outside![3]).toBe(0);

  await edit.prompt().fill('A pond in the middle');
  const sentAt = Date.now();
  await edit.submit().click();
  const { image, mask } = await upstreamEditInputs(studio, sentAt);
  await finished(page);
  expect(checkDimensions(image.width, image.height)).toBeNull();
  // The image went as it was: every pixel, outside the mask and in it.
  const expected = await decodePixels(sent);
  expect([image.width, image.height]).toEqual([expected.width, expected.height]);
  expect(image.data.equals(expected.data)).toBe(true);
  const alpha = ([fx, fy]: [number, number]) =>
    mask!.at(Math.floor(fx * mask!.width), Math.floor(fy * mask!.height))[3];
  expect(alpha([0.15, 0.65])).toBe(0);
  expect(alpha([0.55, 0.15])).toBe(0);
  expect(alpha([0.35, 0.3])).toBe(255);
  expect(alpha([0.8, 0.8])).toBe(255);
  expect(alpha([0.05, 0.05])).toBe(255);
  // The rectangle (0.5 x 0.6 = 0.30 of the image) less the triangle (0.06).
  expect(clearShare(mask!)).toBeCloseTo(0.24, 2);
});

test('edit layers: each result over its source, hidden, blended, exported flattened, reverted; the chain branches on', async () => {
  const { page } = studio;
  await page.getByTestId('edit-result').first().click();
  const layers = page.getByTestId('layer');
  // The expanded canvas, the outpaint's result and this result: same size, one stack.
  await expect(layers).toHaveCount(3);
  const top = layers.first();
  const middle = layers.nth(1);
  await top.getByTestId('layer-visible').uncheck();
  await expect(top).toHaveAttribute('data-hidden', 'true');
  await middle.getByTestId('layer-opacity').fill('50');
  await expect(middle).toHaveAttribute('data-opacity', '0.5');
  await expect(page.getByTestId('layer-view')).toBeVisible();
  await expect(page.getByTestId('layers-note')).toBeVisible();

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('layers-export').click(),
  ]);
  const flat = await decodePixels(await readFile((await download.path())!));
  expect([flat.width, flat.height]).toEqual([1536, 1024]);
  // Where the outpaint filled in, the base is transparent: the middle layer at half opacity.
  expect(flat.at(1400, 500)[3]).toBeGreaterThanOrEqual(126);
  expect(flat.at(1400, 500)[3]).toBeLessThanOrEqual(129);
  // Where the original was, the base shows through whole.
  expect(flat.at(900, 200)[3]).toBe(255);

  await top.getByTestId('layer-revert').click();
  await expect(layers).toHaveCount(2);
  // Flattened: one image to edit on, a step of the chain, with no layers under it.
  await page.getByTestId('layers-flatten').click();
  await expect(page.getByTestId('edit-chain').locator('li')).toHaveCount(4);
  await expect(layers).toHaveCount(0);
});

test('pen pressure sets the brush size or its strength', async () => {
  const { page } = studio;
  const edit = new EditPage(page);
  await choose(page, 'mask-tool', 'brush');
  await page.getByTestId('overlay-colour').fill('#ff2d78');
  await expect(page.getByTestId('pen-pressure')).toHaveValue('size');
  await penStroke(
    page,
    edit.canvas(),
    [
      [0.1, 0.3],
      [0.4, 0.3],
    ],
    0.2,
  );
  await penStroke(
    page,
    edit.canvas(),
    [
      [0.1, 0.7],
      [0.4, 0.7],
    ],
    0.9,
  );
  const light = await markedInColumn(page, 0.25, 0.15, 0.45);
  const heavy = await markedInColumn(page, 0.25, 0.55, 0.85);
  // Brush 64 px: about 13 px at 0.2, about 58 at 0.9, on the image's pixels.
  expect(light.marked).toBeGreaterThan(8);
  expect(light.marked).toBeLessThan(18);
  expect(heavy.marked).toBeGreaterThan(52);
  expect(heavy.marked).toBeLessThan(64);

  await page.getByTestId('pen-pressure').selectOption('opacity');
  await penStroke(
    page,
    edit.canvas(),
    [
      [0.7, 0.3],
      [0.9, 0.3],
    ],
    0.5,
  );
  const soft = await markedInColumn(page, 0.8, 0.15, 0.45);
  // Half pressure: coverage 128 of 255, so the overlay is half as opaque as a full stroke's.
  expect(soft.maxAlpha).toBe(Math.round(128 * 0.55));
  expect(heavy.maxAlpha).toBe(Math.round(255 * 0.55));
});
