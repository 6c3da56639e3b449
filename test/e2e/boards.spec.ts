import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { createKey, generate, settled } from './support/api';
import { GalleryPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('a board is made, filled by dragging tiles onto it, filters the gallery and exports as a ZIP with metadata', async () => {
  const { page } = studio;
  const { key } = await createKey(studio, 'boards app');
  await generate(studio, key, 'A harbour crane at dawn');
  await generate(studio, key, 'A fishing boat at dusk', { size: '1536x1024', quality: 'medium' });
  await generate(studio, key, 'A lighthouse not for the board');
  await settled(studio, 'images', 3);

  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await expect(gallery.tiles()).toHaveCount(3);
  await page.getByTestId('board-new').click();
  await page.getByTestId('board-name').fill('Harbour series');
  await page.getByTestId('board-save').click();
  const chip = page.locator('[data-testid="board-chip"][data-board-name="Harbour series"]');
  await expect(chip).toHaveAttribute('aria-pressed', 'true');
  // A new board shows no image yet.
  await expect(page.getByTestId('gallery-empty')).toBeVisible();
  await page.getByTestId('board-all').click();
  await expect(gallery.tiles()).toHaveCount(3);

  // Drag two tiles onto the board, as a person does.
  const ids: string[] = [];
  for (const prompt of ['A harbour crane', 'A fishing boat']) {
    const { images } = await studio.admin<{ images: Array<{ id: string }> }>(
      'GET',
      `/api/admin/images?q=${encodeURIComponent(prompt)}`,
    );
    const id = images[0]!.id;
    ids.push(id);
    await gallery.tile(id).dragTo(chip);
  }
  await expect(chip).toHaveAttribute('data-count', '2');

  await chip.click();
  await expect(gallery.tiles()).toHaveCount(2);
  for (const id of ids) await expect(gallery.tile(id)).toBeVisible();

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('board-export').click(),
  ]);
  expect(download.suggestedFilename()).toBe('atelier-board-harbour-series-2-images.zip');
  const entries = unzipSync(new Uint8Array(await readFile((await download.path())!)));
  const sidecars = Object.entries(entries)
    .filter(([name]) => name.endsWith('.json'))
    .map(([, bytes]) => JSON.parse(strFromU8(bytes)) as Record<string, unknown>);
  expect(sidecars).toHaveLength(2);
  const boat = sidecars.find((s) => String(s.prompt).includes('fishing boat'))!;
  expect(JSON.stringify(boat)).toContain('1536x1024');
  expect(JSON.stringify(boat)).toContain('medium');
  expect(boat).toMatchObject({ cost: { micros: expect.any(Number) as unknown } });
  expect(boat.createdAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
  expect(Object.keys(entries).filter((name) => name.endsWith('.png'))).toHaveLength(2);

  // Renamed, then deleted: its images stay in the gallery.
  await page.getByTestId('board-rename').click();
  await page.getByTestId('board-name').fill('Harbour, final');
  await page.getByTestId('board-save').click();
  await expect(
    page.locator('[data-testid="board-chip"][data-board-name="Harbour, final"]'),
  ).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('board-delete').click();
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  await expect(page.getByTestId('board-chip')).toHaveCount(0);
  await expect(gallery.tiles()).toHaveCount(3);
});
