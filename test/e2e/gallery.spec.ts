import { expect, test } from '@playwright/test';
import { createKey, generate, settled } from './support/api';
import { EditPage, GalleryPage, GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

const PROMPTS = [
  'A lighthouse on a cliff at dusk',
  'A fox sleeping in autumn leaves',
  'A lighthouse keeper drinking tea',
  'Neon city street in the rain',
];

test.beforeAll(async () => {
  const { key } = await createKey(studio, 'gallery app');
  for (const prompt of PROMPTS) {
    await generate(
      studio,
      key,
      prompt,
      prompt.includes('fox') ? { size: '1536x1024', quality: 'high' } : {},
    );
  }
  await settled(studio, 'images', PROMPTS.length);
});

test('every kept image shows as a thumbnail, and search narrows them by prompt', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  // Images are written to disk after each reply: the live events bring any still on the way.
  await expect(gallery.tiles()).toHaveCount(PROMPTS.length);
  await expect(gallery.tiles().first()).toHaveAttribute('data-loaded', 'true');

  await gallery.search().fill('lighthouse');
  await expect(gallery.tiles()).toHaveCount(2);
  for (const tile of await gallery.tiles().all()) {
    await expect(tile).toHaveAccessibleName(/lighthouse/i);
  }
  await gallery.search().fill('LIGHTHOUSE KEEPER');
  await expect(gallery.tiles()).toHaveCount(1);
  await gallery.search().fill('');
  await expect(gallery.tiles()).toHaveCount(PROMPTS.length);
  await studio.screenshot('gallery');
});

test('the details show requested and delivered size, tokens, cost and request id; re-use fills Generate', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await gallery.search().fill('fox');
  await expect(gallery.tiles()).toHaveCount(1);
  await gallery.tiles().first().click();
  const detail = gallery.detail();
  await expect(detail).toHaveAttribute('data-ready', 'true');
  await expect(detail.getByTestId('detail-prompt-text')).toHaveText(PROMPTS[1]!);
  const facts = detail.getByTestId('detail-facts');
  await expect(facts.locator('[data-fact="requested"] dd')).toHaveText('1536x1024');
  await expect(facts.locator('[data-fact="delivered"] dd')).toContainText('1536x1024');
  await expect(facts.locator('[data-fact="tokens"] dd')).toContainText(/\d+ in · [\d,]+ out/);
  await expect(facts.locator('[data-fact="cost"] dd')).toHaveText(/^\$0\.\d{4}$/);
  await expect(facts.locator('[data-fact="request"] dd')).toContainText(/req_/);
  await studio.screenshot('gallery-detail');

  await detail.getByTestId('detail-reuse').click();
  const generatePage = new GeneratePage(page);
  await expect(page.getByTestId('page-generate')).toBeVisible();
  await expect(generatePage.prompt()).toHaveValue(PROMPTS[1]!);
  await expect(generatePage.size()).toHaveValue('1536x1024');
  await expect(page.getByTestId('param-quality').locator('input[value="high"]')).toBeChecked();
});

test('favourites, compare side by side, edit this and delete', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await expect(gallery.tiles()).toHaveCount(PROMPTS.length);

  // Favourite one, then filter on favourites.
  await gallery.tiles().nth(0).click();
  await gallery.detail().getByTestId('detail-favourite').click();
  await expect(gallery.detail().getByTestId('detail-favourite')).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await page.getByTestId('gallery-favourites').check();
  await expect(gallery.tiles()).toHaveCount(1);
  await page.getByTestId('gallery-favourites').uncheck();
  await expect(gallery.tiles()).toHaveCount(PROMPTS.length);

  // Two into the comparison.
  await gallery.tiles().nth(0).click();
  await gallery.detail().getByTestId('detail-compare').click();
  await gallery.tiles().nth(1).click();
  await gallery.detail().getByTestId('detail-compare').click();
  await page.getByTestId('compare-open').click();
  const compare = page.getByTestId('gallery-compare');
  await expect(compare.getByTestId('compare-image')).toHaveCount(2);
  await expect(compare.locator('tr[data-differs="true"]').first()).toBeVisible();
  await studio.screenshot('gallery-compare');
  await compare.getByRole('button', { name: 'Close' }).click();

  // Delete the second, with confirmation.
  const doomed = await gallery.tiles().nth(1).getAttribute('data-image-id');
  await gallery.tiles().nth(1).click();
  await gallery.detail().getByTestId('detail-delete').click();
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  await expect(gallery.tiles()).toHaveCount(PROMPTS.length - 1);
  await expect(gallery.tile(doomed!)).toHaveCount(0);

  // "Edit this" opens the image in Edit, linked to the gallery for the edit chain.
  const source = await gallery.tiles().nth(0).getAttribute('data-image-id');
  await gallery.tiles().nth(0).click();
  await gallery.detail().getByTestId('detail-edit').click();
  await expect(page.getByTestId('page-edit')).toBeVisible();
  await expect(page.getByTestId('reference').first()).toHaveAttribute('data-gallery-id', source!);

  // An edit of it joins the edit chain: the result's details show the parent, the mask and the
  // prompt, and the parent opens from there.
  const edit = new EditPage(page);
  await edit.stroke([
    [0.2, 0.3],
    [0.6, 0.3],
  ]);
  await expect(page.getByTestId('mask-preview-panel')).toHaveAttribute('data-state', 'current');
  await edit.prompt().fill('Add a red balloon');
  await edit.submit().click();
  await expect(edit.results()).toHaveCount(1);
  // One deleted, one made by the edit.
  await settled(studio, 'images', PROMPTS.length - 1 + 1);
  await open(page, 'gallery');
  await gallery.search().fill('');
  const result = gallery.tiles().first();
  await expect(result).toHaveAccessibleName(/.+/);
  await result.click();
  const chain = gallery.detail().getByTestId('detail-chain');
  await expect(chain.getByTestId('chain-step')).toHaveCount(2);
  await expect(chain.getByTestId('chain-step').first()).toHaveAttribute('data-image-id', source!);
  await expect(chain).toContainText('Add a red balloon');
  // Each step says how it was made, the first one too.
  await expect(chain.getByTestId('chain-prompt').first()).toContainText('Generated:');
  await expect(chain.getByTestId('chain-mask')).toHaveJSProperty('complete', true);
  await studio.screenshot('gallery-chain');
  await chain.getByTestId('chain-step').first().getByRole('button').click();
  await expect(gallery.detail()).toHaveAttribute('data-image-id', source!);
});

test('the detail shows the image first at a usable size, at 1440x900 and 1024x700; facts scroll', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await gallery.search().fill('');
  // The newest is the edit made above (its chain fills the panel); the last is a plain image.
  const edited = gallery.tiles().first();
  const plain = gallery.tiles().last();
  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const tile of [edited, plain]) {
      await tile.click();
      const detail = gallery.detail();
      await expect(detail).toHaveAttribute('data-ready', 'true');
      const image = detail.getByTestId('detail-image');
      await expect(image).toHaveJSProperty('complete', true);
      // Whole, in view, and big enough to judge: at least a fifth of the window's height.
      await expect(image).toBeInViewport({ ratio: 1 });
      const box = (await image.boundingBox())!;
      expect(box.height, `image height at ${width}x${height}`).toBeGreaterThanOrEqual(height / 5);
      expect(box.width).toBeGreaterThanOrEqual(250);
      // The panel ends inside the window; what does not fit scrolls inside it.
      const panel = (await detail.boundingBox())!;
      expect(panel.y + panel.height).toBeLessThanOrEqual(height);
      await expect(detail.getByTestId('detail-actions')).toBeInViewport({ ratio: 1 });
    }
    const body = gallery.detail().getByTestId('detail-body');
    await edited.click();
    await expect(gallery.detail().getByTestId('chain-step')).toHaveCount(2);
    const scroll = await body.evaluate((e) => e.scrollHeight - e.clientHeight);
    if (scroll > 0) {
      await gallery.detail().getByTestId('detail-chain').scrollIntoViewIfNeeded();
      await expect(gallery.detail().getByTestId('chain-step').last()).toBeInViewport();
      await expect(gallery.detail().getByTestId('detail-image')).toBeInViewport({ ratio: 1 });
    }
    await studio.screenshot(`gallery-detail-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
});
