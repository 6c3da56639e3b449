import { expect, test } from '@playwright/test';
import type { ImageRecord, UsageTotal } from '../../src/shared/admin';
import { scriptFaults, settled, upstreamReceived } from './support/api';
import { GalleryPage, GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('a star on Generate is a gallery favourite, a reject hides the image, across a reload', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('Keepers of a harbour at dusk');
  await page.getByTestId('param-n').fill('2');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  await settled(studio, 'images', 2);

  const run = page.getByTestId('session-run').first();
  await expect(run).toContainText('Keepers of a harbour at dusk');
  const images = run.getByTestId('session-image');
  await expect(images).toHaveCount(2);
  const [keep, drop] = [images.nth(0), images.nth(1)];
  const keepId = (await keep.getAttribute('data-image-id'))!;
  const dropId = (await drop.getAttribute('data-image-id'))!;
  // Each tile says its size, its cost and when it was made.
  await expect(keep.getByTestId('session-image-facts')).toHaveText(
    /^1024x1024 · \$\d+\.\d+ · \d{4}-\d\d-\d\d \d\d:\d\d/,
  );
  await keep.getByTestId('session-star').click();
  await expect(keep).toHaveAttribute('data-mark', 'star');
  await drop.getByTestId('session-reject').click();
  await expect(drop).toHaveAttribute('data-mark', 'reject');

  // A reload reads the runs and the marks back from the gateway.
  await page.reload();
  await expect(page.getByTestId('page-generate')).toHaveAttribute('data-ready', 'true');
  const again = page.getByTestId('session-run').first();
  await expect(again).toContainText('Keepers of a harbour at dusk');
  await expect(again.locator(`[data-image-id="${keepId}"]`)).toHaveAttribute('data-mark', 'star');
  await expect(again.locator(`[data-image-id="${dropId}"]`)).toHaveAttribute('data-mark', 'reject');
  await expect(page.getByTestId('session-runs')).toContainText('1 starred');

  // The gallery shows the keeper as a favourite and hides the reject.
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await gallery.search().fill('Keepers of a harbour');
  await expect(gallery.tiles()).toHaveCount(1);
  await expect(gallery.tile(keepId)).toBeVisible();
  await page.getByTestId('gallery-favourites').check();
  await expect(gallery.tiles()).toHaveCount(1);
  await expect(gallery.tile(keepId)).toBeVisible();
  const listed = await studio.admin<{ images: ImageRecord[] }>(
    'GET',
    '/api/admin/images?rejected=1',
  );
  expect(listed.images.map((i) => i.id)).toEqual([dropId]);
});

test('the viewer opened from a run has its actions: favourite, download, compare, delete', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const run = page.getByTestId('session-run').first();
  const images = run.getByTestId('session-image');
  await expect(images).toHaveCount(2);
  const dropId = (await images.nth(1).getAttribute('data-image-id'))!;
  await images.nth(1).getByRole('button', { name: 'View image 2' }).click();
  const viewer = page.getByTestId('image-viewer');
  await expect(viewer).toBeVisible();

  const favourite = viewer.getByTestId('viewer-favourite');
  await expect(favourite).toHaveAttribute('aria-pressed', 'false');
  await favourite.click();
  await expect(favourite).toHaveAttribute('aria-pressed', 'true');
  // A favourite is no reject: the tile behind says star now.
  await expect(images.nth(1)).toHaveAttribute('data-mark', 'star');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    viewer.getByTestId('viewer-download').click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.png$/);

  await viewer.getByTestId('viewer-compare').click();
  await expect(viewer).toHaveAttribute('data-mode', 'wipe');
  await expect(viewer.getByTestId('viewer-against-image')).toBeVisible();

  await viewer.getByTestId('viewer-delete').click();
  await expect(viewer).toHaveCount(0);
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  await expect(images).toHaveCount(1);
  const gone = await studio.admin<{ images: ImageRecord[] }>('GET', '/api/admin/images');
  expect(gone.images.map((i) => i.id)).not.toContain(dropId);
});

test('a cancelled run reads cancelled in the runs view and not as a failure on Usage', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await page.getByTestId('param-n').fill('1');
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 30_000 }]);
  await generate.prompt().fill('A run the person stops');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  await upstreamReceived(studio, 'A run the person stops');
  await generate.cancel().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'cancelled');
  await expect(page.locator('[data-testid="session-run"][data-phase="cancelled"]')).toHaveCount(1);

  await open(page, 'usage');
  await expect(page.getByTestId('usage-total-cancelled')).toContainText('1');
  await expect(page.getByTestId('usage-total-errors')).toContainText('0');
  const totals = await studio.admin<{ rows: UsageTotal[] }>('GET', '/api/admin/usage/totals');
  expect(totals.rows[0]).toMatchObject({ errors: 0, cancelled: 1 });
});
