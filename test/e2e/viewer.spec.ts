import crypto from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { SIM_SEED_HEADER } from '../../src/simulator/variant';
import { createKey, generate, settled } from './support/api';
import { GalleryPage, GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

interface Listed {
  id: string;
  prompt: string;
  requestId: string | null;
}

const viewer = (page: Page) => page.getByTestId('image-viewer');

test.beforeAll(async () => {
  const { key } = await createKey(studio, 'viewer app');
  // The same request twice with the same simulator seed draws the same picture: a pair whose
  // difference is nothing. The wide one shows 100 % against fit.
  const sameSeed = { [SIM_SEED_HEADER]: 'viewer-harbour' };
  await generate(studio, key, 'A quiet harbour at dawn', {}, sameSeed);
  await generate(studio, key, 'A quiet harbour at dawn', {}, sameSeed);
  await generate(studio, key, 'A desert road at noon', { size: '1536x1024' });
  await settled(studio, 'images', 3);
});

test('n=4 from Generate gives four different images, viewed full window one after another', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generatePage = new GeneratePage(page);
  await generatePage.prompt().fill('Four lanterns over a lake');
  await page.getByTestId('param-n').fill('4');
  await generatePage.submit().click();
  await expect(generatePage.status()).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  await expect(generatePage.results()).toHaveCount(4);

  // The gallery keeps the four files: all different pictures.
  await settled(studio, 'images', 7);
  const { images } = await studio.admin<{ images: Listed[] }>(
    'GET',
    '/api/admin/images?q=lanterns',
  );
  expect(images).toHaveLength(4);
  const hashes = await Promise.all(
    images.map(async (image) =>
      crypto
        .createHash('sha256')
        .update(await studio.adminBytes(`/api/admin/images/${image.id}/file`))
        .digest('hex'),
    ),
  );
  expect(new Set(hashes).size).toBe(4);

  // Click a result: the viewer fills the window; arrows go through the four; Esc closes.
  await generatePage.results().first().click();
  await expect(viewer(page)).toBeVisible();
  await expect(page.getByTestId('viewer-count')).toHaveText('1 / 4');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('viewer-count')).toHaveText('3 / 4');
  await page.keyboard.press('ArrowLeft');
  await expect(viewer(page)).toHaveAttribute('data-index', '1');
  // Against another result the difference is real: a share of the pixels differs.
  await page.getByTestId('viewer-against').selectOption({ label: 'Result 1' });
  await page.getByTestId('viewer-difference-mode').click();
  await expect(page.getByTestId('viewer-difference')).toBeVisible();
  const share = Number(await page.getByTestId('viewer-diff-share').getAttribute('data-share'));
  expect(share).toBeGreaterThan(0.05);
  await studio.screenshot('viewer-difference');
  await page.keyboard.press('Escape');
  await expect(viewer(page)).toHaveCount(0);
});

test('from the gallery: full window, fit and 100 %, pan, arrows, wipe and difference, Esc', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await gallery.search().fill('desert');
  await expect(gallery.tiles()).toHaveCount(1);
  await gallery.tiles().first().click();
  await gallery.detail().getByTestId('detail-view').click();
  const v = viewer(page);
  await expect(v).toBeVisible();
  // The whole window, fitting the image inside it.
  const size = page.viewportSize()!;
  const box = (await v.boundingBox())!;
  expect([Math.round(box.width), Math.round(box.height)]).toEqual([size.width, size.height]);
  await expect(v).toHaveAttribute('data-zoom', 'fit');
  const image = page.getByTestId('viewer-image');
  await expect(image).toHaveJSProperty('complete', true);
  const stage = (await page.getByTestId('viewer-stage').boundingBox())!;
  const fit = (await image.boundingBox())!;
  expect(fit.width).toBeLessThanOrEqual(stage.width + 1);
  expect(fit.height).toBeLessThanOrEqual(stage.height + 1);
  // Fit touches the stage on one side.
  expect(Math.max(fit.width / stage.width, fit.height / stage.height)).toBeGreaterThan(0.98);

  // 100 %: one image pixel to one CSS pixel, then pan by dragging.
  await page.getByTestId('viewer-actual').click();
  await expect(v).toHaveAttribute('data-scale', '1.0000');
  expect(Math.round((await image.boundingBox())!.width)).toBe(1536);
  const cx = stage.x + stage.width / 2;
  const cy = stage.y + stage.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx - 200, cy - 100, { steps: 5 });
  await page.mouse.up();
  await expect(v).toHaveAttribute('data-offset', '-200,-100');
  await page.keyboard.press('f');
  await expect(v).toHaveAttribute('data-zoom', 'fit');
  await expect(v).toHaveAttribute('data-offset', '0,0');

  // Arrows follow the listed set, and the details follow the viewer.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('viewer-count')).toHaveText('1 / 1');
  await page.keyboard.press('Escape');
  await expect(v).toHaveCount(0);

  await gallery.search().fill('harbour');
  await expect(gallery.tiles()).toHaveCount(2);
  const second = await gallery.tiles().nth(1).getAttribute('data-image-id');
  await gallery.tiles().first().click();
  await gallery.detail().getByTestId('detail-view').click();
  await expect(page.getByTestId('viewer-count')).toHaveText('1 / 2');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('viewer-count')).toHaveText('2 / 2');

  // The same picture made twice: the difference is nothing at all.
  await page.getByTestId('viewer-against').selectOption({ index: 1 });
  await page.getByTestId('viewer-difference-mode').click();
  await expect(page.getByTestId('viewer-diff-share')).toHaveAttribute('data-share', '0.000000');
  // The wipe shows the other image left of the line, this one right of it.
  await page.getByTestId('viewer-wipe-mode').click();
  await expect(page.getByTestId('viewer-against-image')).toBeVisible();
  await page.getByTestId('viewer-wipe').fill('30');
  await expect(image).toHaveAttribute('style', /inset\(0(px)? 0(px)? 0(px)? 30%\)/);
  await studio.screenshot('viewer-wipe');
  await page.keyboard.press('Escape');
  await expect(v).toHaveCount(0);
  await expect(gallery.detail()).toHaveAttribute('data-image-id', second!);
});
