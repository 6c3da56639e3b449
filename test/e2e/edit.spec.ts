import { expect, test } from '@playwright/test';
import { scriptFaults } from './support/api';
import { patternPng, rgba } from './support/images';
import { choose, EditPage, GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();
const SIZE = 1024;

interface Image {
  id: string;
  endpoint: string;
  parentId: string | null;
  hasMask: boolean;
  width: number;
  height: number;
}

test('a painted mask changes the image inside the painted area and nowhere else', async () => {
  const { page } = studio;
  const source = await patternPng(SIZE, SIZE);
  await open(page, 'edit');
  const edit = new EditPage(page);
  await edit
    .fileInput()
    .setInputFiles({ name: 'pattern.png', mimeType: 'image/png', buffer: source });
  await expect(page.getByTestId('reference')).toHaveCount(1);
  await expect(edit.canvas()).toBeVisible();

  // One horizontal stroke across the middle, from 30% to 70% of the width.
  await edit.stroke([
    [0.3, 0.5],
    [0.7, 0.5],
  ]);
  await expect(edit.share()).toContainText('% of the image will change');
  await expect(page.getByTestId('mask-preview-panel')).toHaveAttribute('data-state', 'current');
  await studio.screenshot('edit-mask');

  await edit.prompt().fill('Turn the middle band into a glowing river');
  await edit.submit().click();
  await expect(edit.results()).toHaveCount(1);
  await expect(page.getByTestId('run-status').first()).toHaveAttribute('data-phase', 'done');
  await studio.screenshot('edit-result');

  // The gateway keeps the result (after the reply) with the mask that made it.
  let result: Image | undefined;
  await expect
    .poll(async () => {
      const { images } = await studio.admin<{ images: Image[] }>(
        'GET',
        '/api/admin/images?limit=5',
      );
      result = images.find((i) => i.endpoint.endsWith('/edits'));
      return result?.hasMask ?? false;
    })
    .toBe(true);
  const [after, mask, before] = await Promise.all([
    studio.adminBytes(`/api/admin/images/${result!.id}/file`).then(rgba),
    studio.adminBytes(`/api/admin/images/${result!.id}/mask`).then(rgba),
    rgba(source),
  ]);
  expect([after.width, after.height]).toEqual([SIZE, SIZE]);
  expect([mask.width, mask.height]).toEqual([SIZE, SIZE]);

  // Where the mask is opaque (keep), the result is the source bit for bit; where it is clear
  // (change), nearly every pixel differs; and the clear part is where the stroke went.
  let kept = 0;
  let keptSame = 0;
  let painted = 0;
  let paintedChanged = 0;
  const box = { left: SIZE, right: 0, top: SIZE, bottom: 0 };
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const i = (y * SIZE + x) * 4;
      const alpha = mask.data[i + 3]!;
      const same =
        after.data[i] === before.data[i] &&
        after.data[i + 1] === before.data[i + 1] &&
        after.data[i + 2] === before.data[i + 2];
      if (alpha === 255) {
        kept++;
        if (same) keptSame++;
      } else if (alpha === 0) {
        painted++;
        if (!same) paintedChanged++;
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
    }
  }
  expect(painted).toBeGreaterThan(SIZE * 0.4 * 20);
  expect(keptSame).toBe(kept);
  expect(paintedChanged / painted).toBeGreaterThan(0.9);
  // The stroke ran from x 30% to 70% at y 50%, with a brush of at most ~100 px.
  const slack = 110;
  expect(box.left).toBeGreaterThanOrEqual(SIZE * 0.3 - slack);
  expect(box.right).toBeLessThanOrEqual(SIZE * 0.7 + slack);
  expect(box.top).toBeGreaterThanOrEqual(SIZE * 0.5 - slack);
  expect(box.bottom).toBeLessThanOrEqual(SIZE * 0.5 + slack);
  expect(box.right - box.left).toBeGreaterThan(SIZE * 0.35);
});

test('at 1280x800 the edit runs in view: progress, the finished result, then the next step', async () => {
  const { page } = studio;
  await page.setViewportSize({ width: 1280, height: 800 });
  await open(page, 'edit');
  await page.evaluate(() => window.scrollTo(0, 0));
  const edit = new EditPage(page);
  // The last test's result is on show: back to the mask.
  await choose(page, 'edit-view', 'mask');
  await expect(edit.canvas()).toBeInViewport();
  await edit.stroke([
    [0.2, 0.2],
    [0.5, 0.2],
  ]);
  await edit.maskCurrent();
  // The upstream takes a few seconds, long enough to look at the run while it works.
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 4_000 }]);
  await edit.prompt().fill('Turn the top band into a sunset');
  await edit.submit().click();

  const status = page.getByTestId('run-status');
  await expect(status).toHaveAttribute('data-phase', 'running');
  await expect(status).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('cancel')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('edit-run-note')).toHaveAttribute('data-phase', 'running');
  await expect(page.getByTestId('edit-run-note')).toBeInViewport({ ratio: 1 });

  await expect(status).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  // Finished: said beside the button, and the result and its comparison on screen, whole.
  await expect(page.getByTestId('edit-run-note')).toContainText('Done');
  await expect(page.getByTestId('edit-run-note')).toBeInViewport({ ratio: 1 });
  for (const part of [edit.results().first(), page.getByTestId('compare-after')]) {
    await expect(part).toBeInViewport({ ratio: 1 });
  }
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await studio.screenshot('edit-1280x800-result');

  // "Edit this result" loads it as the next step, on the canvas, in view.
  await page.getByTestId('edit-result').first().click();
  await expect(page.getByTestId('edit-chain').locator('li')).toHaveCount(2);
  await expect(edit.canvas()).toBeInViewport();
  await expect(page.getByTestId('mask-tool')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('zoom-value')).toBeInViewport({ ratio: 1 });
  await page.setViewportSize({ width: 1440, height: 900 });
});

test('a Generate result sent to Edit is linked to its gallery image, and the edit records it as parent', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A paper boat on a still pond');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');

  // "Edit this result" at once: the gallery may not have stored the image yet, so the studio
  // finds its record by the events stream's `image` event (or by looking once the stream is live).
  await page.getByTestId('generate-results').getByTestId('edit-result').first().click();
  const edit = new EditPage(page);
  const reference = edit.references().first();
  await expect(reference).toHaveAttribute('data-gallery-id', /.+/, { timeout: 20_000 });
  const galleryId = await reference.getAttribute('data-gallery-id');
  const { images } = await studio.admin<{ images: Image[] }>(
    'GET',
    `/api/admin/images?q=${encodeURIComponent('paper boat')}&limit=1`,
  );
  expect(images[0]?.id).toBe(galleryId);

  await edit.stroke([
    [0.3, 0.5],
    [0.7, 0.5],
  ]);
  await edit.maskCurrent();
  await edit.prompt().fill('Add a red sail');
  await edit.submit().click();
  await expect(page.getByTestId('run-status').first()).toHaveAttribute('data-phase', 'done');
  await expect
    .poll(async () => {
      const { images: edits } = await studio.admin<{ images: Image[] }>(
        'GET',
        `/api/admin/images?q=${encodeURIComponent('red sail')}&limit=1`,
      );
      return edits[0]?.parentId ?? null;
    })
    .toBe(galleryId);
});
