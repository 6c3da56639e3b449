import { expect, test, type Page } from '@playwright/test';
import type { ImageRecord } from '../../src/shared/admin';
import { formatUsd } from '../../src/shared/costEstimate';
import { settled } from './support/api';
import { choose, GalleryPage, GeneratePage, open, ready } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

/** A low-quality 1024x1024 run from Generate, sent and finished. */
async function cheapRun(page: Page, prompt: string): Promise<void> {
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill(prompt);
  await generate.size().selectOption('1024x1024');
  await generate.choose('param-quality', 'low');
  await page.getByTestId('param-n').fill('1');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
}

test('presets and the draft are kept by the gateway: a studio on a new port (empty storage) has them', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A heron in ink, kept across ports');
  await generate.savePreset('Ink heron');
  await expect
    .poll(async () =>
      Object.keys(
        (await studio.admin<{ entries: Record<string, unknown> }>('GET', '/api/admin/studio/state'))
          .entries,
      ),
    )
    .toEqual(expect.arrayContaining(['atelier.presets.v1', 'atelier.generate.v1']));

  // A changed port is a new origin: its localStorage and sessionStorage start empty.
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  await page.reload();
  await ready(page, 'generate');
  await expect(generate.prompt()).toHaveValue('A heron in ink, kept across ports');
  await generate.presetButton().click();
  await expect(generate.presetItem('Ink heron')).toHaveCount(1);
  await page.keyboard.press('Escape');
});

test('the session budget is the gateway’s: a second tab shows the same spend', async () => {
  const { page, context } = studio;
  await cheapRun(page, 'A pebble on a slate, for the session');
  await open(page, 'settings');
  const panel = page.getByTestId('studio-budget');
  await choose(page, 'studio-budget-choice', 'session');
  await panel.getByTestId('studio-budget-amount').fill('5');
  await panel.getByTestId('studio-budget-confirm-above').fill('');
  await panel.getByTestId('studio-budget-save').click();
  await expect(panel.getByTestId('studio-budget-state')).toHaveText('Saved.');
  const label = page.getByTestId('budget-label');
  await expect(label).toContainText('of $5.00 this session');
  await expect(label).not.toContainText('$0.00 of');
  const spent = await label.textContent();

  const second = await context.newPage();
  try {
    await second.goto(page.url());
    await expect(second.locator('.app')).toHaveAttribute('data-ready', 'true');
    await expect(second.getByTestId('budget-label')).toHaveText(spent!);
  } finally {
    await second.close();
  }
});

test('the gallery detail shows what the lineage cost: the generation and its edits', async () => {
  const { page } = studio;
  await cheapRun(page, 'A quay for a lineage');
  await settled(studio, 'images', 2);
  const { images } = await studio.admin<{ images: ImageRecord[] }>(
    'GET',
    '/api/admin/images?q=lineage',
  );
  const root = images[0]!;
  // Two edits through /v1 as the studio, each naming the image it was made from.
  const editOf = async (parentId: string, prompt: string): Promise<string> => {
    const requestId = await page.evaluate(
      async ({ parentId, prompt }) => {
        const source = await (await fetch(`/api/admin/images/${parentId}/file`)).blob();
        const form = new FormData();
        form.append('model', 'image-model-2');
        form.append('prompt', prompt);
        form.append('quality', 'low');
        form.append('image', source, 'source.png');
        const res = await fetch('/v1/images/edits', {
          method: 'POST',
          headers: { 'x-atelier-studio': '1', 'x-atelier-parent-image': parentId },
          body: form,
        });
        await res.arrayBuffer();
        return res.headers.get('x-request-id')!;
      },
      { parentId, prompt },
    );
    let kept: string | undefined;
    await expect
      .poll(async () => {
        const { images: found } = await studio.admin<{ images: ImageRecord[] }>(
          'GET',
          `/api/admin/images?q=${encodeURIComponent(prompt)}`,
        );
        kept = found.find((image) => image.requestId === requestId)?.id;
        return kept;
      })
      .toBeDefined();
    return kept!;
  };
  const edited = await editOf(await editOf(root.id, 'add a crane'), 'add rain');

  const lineage = await studio.admin<{ images: ImageRecord[] }>('GET', '/api/admin/images?q=add');
  const total = root.costMicros + lineage.images.reduce((sum, image) => sum + image.costMicros, 0);
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await gallery.tile(edited).click();
  const fact = gallery.detail().locator('[data-fact="lineage-cost"]');
  await expect(fact).toContainText(formatUsd(total));
  await expect(fact).toContainText('3 images');
});
