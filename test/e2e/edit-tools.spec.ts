import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { patternPng, rgba } from './support/images';
import { choose, EditPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();
const W = 1024;
const H = 768;

/** A JPEG first image: the mask is a PNG, so spec 4.2 needs the image sent as PNG too. */
const photoJpeg = async () =>
  sharp(await patternPng(W, H))
    .jpeg({ quality: 90 })
    .toBuffer();

/** A mask file: opaque (keep) everywhere but a clear (change) rectangle. */
function maskPng(
  width: number,
  height: number,
  clear: { x: number; y: number; w: number; h: number },
) {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = x >= clear.x && x < clear.x + clear.w && y >= clear.y && y < clear.y + clear.h;
      data[(y * width + x) * 4 + 3] = inside ? 0 : 255;
    }
  }
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

async function addPhoto(page: Page, edit: EditPage) {
  await edit
    .fileInput()
    .setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: await photoJpeg() });
  await expect(edit.references()).toHaveCount(1);
  await expect(edit.canvas()).toBeVisible();
}

test('brush, eraser, undo, redo, feather, invert, clear, zoom, overlay, and the exported mask', async () => {
  const { page } = studio;
  await open(page, 'edit');
  const edit = new EditPage(page);
  await addPhoto(page, edit);
  await edit.prompt().fill('Turn the band into a river');

  // Nothing painted: the edit is refused with a clear message, until something is painted.
  await edit.submit().click();
  await expect(edit.emptyMaskError()).toContainText('The mask is empty');
  await edit.stroke([
    [0.2, 0.5],
    [0.5, 0.5],
  ]);
  await expect(edit.emptyMaskError()).toHaveCount(0);
  const painted = await edit.changedPercent();
  expect(painted).toBeGreaterThan(1);

  // Undo and redo are per stroke.
  await page.getByTestId('mask-undo').click();
  await expect(edit.share()).toHaveText(/Nothing painted/);
  await page.getByTestId('mask-redo').click();
  await expect.poll(() => edit.changedPercent()).toBe(painted);

  // The eraser takes back the right end of the band.
  await choose(page, 'mask-tool', 'eraser');
  await edit.stroke([
    [0.4, 0.5],
    [0.55, 0.5],
  ]);
  await expect.poll(() => edit.changedPercent()).toBeLessThan(painted);
  await choose(page, 'mask-tool', 'brush');

  // The file to be sent: the image's exact size, clear where painted, opaque elsewhere (and
  // where erased), no half-transparent pixels without feather.
  const sharpMask = await edit.maskFile([
    [0.25, 0.5],
    [0.48, 0.5],
    [0.8, 0.2],
  ]);
  expect(sharpMask).toMatchObject({ width: W, height: H, partial: 0, alphaAt: [0, 255, 255] });
  expect(sharpMask.clear).toBeGreaterThan(0);
  await studio.screenshot('edit-tools-painted');

  // Feather softens the edge: partly transparent pixels appear, the core stays clear.
  await page.getByTestId('feather').fill('16');
  const feathered = await edit.maskFile([[0.25, 0.5]]);
  expect(feathered.partial).toBeGreaterThan(0);
  expect(feathered.alphaAt).toEqual([0]);
  await page.getByTestId('feather').fill('0');

  // Invert (I): what was kept now changes.
  await edit.viewport().focus();
  await page.keyboard.press('i');
  await expect.poll(() => edit.changedPercent()).toBeGreaterThan(90);
  const inverted = await edit.maskFile([
    [0.25, 0.5],
    [0.8, 0.2],
  ]);
  expect(inverted.alphaAt).toEqual([255, 0]);

  // Zoom in, back to fit; the overlay hides and shows.
  const fit = await page.getByTestId('zoom-value').textContent();
  await page.keyboard.press('+');
  await expect(page.getByTestId('zoom-value')).not.toHaveText(fit!);
  // Space held: a drag pans instead of painting.
  const stage = page.locator('.mask-stage');
  const before = await stage.getAttribute('style');
  const share = await edit.share().textContent();
  await page.keyboard.down('Space');
  await edit.stroke([
    [0.5, 0.5],
    [0.7, 0.6],
  ]);
  await page.keyboard.up('Space');
  await expect(stage).not.toHaveAttribute('style', before!);
  await expect(edit.share()).toHaveText(share!);
  await page.keyboard.press('0');
  await expect(page.getByTestId('zoom-value')).toHaveText(fit!);
  await page.getByTestId('mask-overlay').click();
  await expect(page.getByTestId('mask-overlay')).toHaveAttribute('aria-pressed', 'false');
  await expect(edit.canvas()).toBeHidden();
  await page.getByTestId('mask-overlay').click();
  await expect(edit.canvas()).toBeVisible();

  // Clear empties it; the send is refused again.
  await page.getByTestId('mask-clear').click();
  await expect(edit.share()).toHaveText(/Nothing painted/);
  await edit.submit().click();
  await expect(edit.emptyMaskError()).toBeVisible();
});

test('a mask file is loaded when it has the image’s size, refused by name when not', async () => {
  const { page } = studio;
  await open(page, 'edit');
  const edit = new EditPage(page);
  await expect(edit.references()).toHaveCount(1);

  await edit.maskFileInput().setInputFiles({
    name: 'small.png',
    mimeType: 'image/png',
    buffer: await maskPng(512, 512, { x: 0, y: 0, w: 64, h: 64 }),
  });
  await expect(edit.loadError()).toContainText('small.png is 512x512 but the image is 1024x768');
  await studio.screenshot('edit-mask-refused');

  // The refusal was about that image: another first image starts without it.
  await edit.fileInput().setInputFiles({
    name: 'other.png',
    mimeType: 'image/png',
    buffer: await patternPng(1024, 1024, 3),
  });
  await page.getByRole('button', { name: 'Move other.png earlier' }).click();
  await expect(edit.loadError()).toHaveCount(0);
  await page.getByRole('button', { name: 'Remove other.png' }).click();
  await expect(edit.references()).toHaveCount(1);

  const rect = { x: 128, y: 96, w: 256, h: 192 };
  await edit
    .maskFileInput()
    .setInputFiles({ name: 'mask.png', mimeType: 'image/png', buffer: await maskPng(W, H, rect) });
  await expect(edit.loadError()).toHaveCount(0);
  await expect(edit.share()).toHaveText(
    `${((rect.w * rect.h * 100) / (W * H)).toFixed(1)}% of the image will change`,
  );
  const loaded = await edit.maskFile([
    [(rect.x + 10) / W, (rect.y + 10) / H],
    [0.9, 0.9],
  ]);
  expect(loaded).toMatchObject({ clear: rect.w * rect.h, partial: 0, alphaAt: [0, 255] });
});

test('a JPEG image is sent as PNG with its PNG mask, and the edit keeps the mask', async () => {
  const { page } = studio;
  await open(page, 'edit');
  const edit = new EditPage(page);
  await expect(edit.share()).toHaveText(/will change/);
  await edit.prompt().fill('A moon in the corner');

  // The gateway refuses a mask whose format differs from the image's (spec 4.2), so an edit
  // that succeeds with this JPEG and a PNG mask went out with the image converted to PNG.
  await edit.submit().click();
  await expect(edit.results()).toHaveCount(1);
  await expect(page.getByTestId('run-status').first()).toHaveAttribute('data-phase', 'done');

  let image: { id: string; hasMask: boolean; width: number; height: number } | undefined;
  await expect
    .poll(async () => {
      const { images } = await studio.admin<{ images: NonNullable<typeof image>[] }>(
        'GET',
        '/api/admin/images?limit=1',
      );
      image = images[0];
      return image?.hasMask ?? false;
    })
    .toBe(true);
  const mask = await rgba(await studio.adminBytes(`/api/admin/images/${image!.id}/mask`));
  expect([mask.width, mask.height, image!.width, image!.height]).toEqual([W, H, W, H]);
});

test('references come by paste, drop and the gallery picker, up to 16', async () => {
  const { page } = studio;
  await open(page, 'edit');
  const edit = new EditPage(page);
  await expect(edit.references()).toHaveCount(1);
  const png = (await patternPng(1024, 1024, 2)).toString('base64');

  // Paste one image.
  await page.evaluate((b64) => {
    const data = new DataTransfer();
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    data.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
    document.body.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, png);
  await expect(edit.references()).toHaveCount(2);

  // Pick one from the gallery (the edit made above): it remembers where it came from.
  await page.getByTestId('open-gallery-picker').click();
  await page.getByTestId('gallery-pick').first().click();
  await expect(edit.references()).toHaveCount(3);
  await expect(edit.references().nth(2)).toHaveAttribute('data-gallery-id', /^img_/);

  // Drop 15 more: 13 fit, and the page says how many were left out.
  await page.evaluate((b64) => {
    const data = new DataTransfer();
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    for (let i = 0; i < 15; i++) {
      data.items.add(new File([bytes], `drop-${i}.png`, { type: 'image/png' }));
    }
    const zone = document.querySelector('[data-testid="edit-dropzone"]')!;
    zone.dispatchEvent(
      new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }),
    );
    zone.dispatchEvent(
      new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }),
    );
  }, png);
  await expect(edit.references()).toHaveCount(16);
  await expect(page.getByTestId('edit-notice')).toHaveText('At most 16 images: 2 left out');
  await expect(page.getByTestId('open-gallery-picker')).toBeDisabled();
  await studio.screenshot('edit-sixteen-references');
});
