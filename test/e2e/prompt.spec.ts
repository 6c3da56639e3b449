import { expect, test } from '@playwright/test';
import { GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';
import {
  atWindowSize,
  expectClickable,
  expectWhollyVisible,
  sizeName,
  WINDOW_SIZES,
} from './support/windows';

const studio = useStudio();

const WATERCOLOUR = 'Watercolour illustration with loose washes and paper texture';

for (const size of WINDOW_SIZES) {
  test(`at ${sizeName(size)} a starter preset adds its style to the artist's words, with Undo`, async () => {
    const { page } = studio;
    await atWindowSize(page, size, async () => {
      await open(page, 'generate');
      const generate = new GeneratePage(page);
      await generate.prompt().fill('A heron at the river mouth');
      await page.getByTestId('param-n').fill('2');
      await generate.applyPreset(WATERCOLOUR);
      // The Undo offer shows where the preset was picked.
      const applied = page.getByTestId('preset-applied');
      await expect(applied).toContainText(WATERCOLOUR);
      await expectClickable(applied.getByTestId('preset-applied-undo'), 'Undo');
      // The words stay; the look is added in the structure fields, which open to show it.
      await expect(generate.prompt()).toHaveValue('A heron at the river mouth');
      const style = page.getByTestId('prompt-style');
      await expect(style).toHaveValue(/watercolour, loose washes/);
      await style.scrollIntoViewIfNeeded();
      await expectWhollyVisible(style, 'the style field');
      await expect(page.getByTestId('composed-prompt')).toContainText('A heron at the river mouth');
      await expect(page.getByTestId('param-n')).toHaveValue('1');

      // Undo puts back the words, fields and parameters as they were.
      await applied.getByTestId('preset-applied-undo').click();
      await expect(applied).toBeHidden();
      await expect(page.getByTestId('structure-chip')).toHaveCount(0);
      await expect(page.getByTestId('composed-prompt')).toHaveCount(0);
      await expect(page.getByTestId('param-n')).toHaveValue('2');
      await expect(generate.prompt()).toHaveValue('A heron at the river mouth');
      await page.getByTestId('param-n').fill('1');
    });
  });
}

test('structure fields in use stay in sight when folded, each cleared in one click', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A lantern');
  await page.locator('.structure > summary').click();
  await page.getByTestId('prompt-subject').fill('an old subject from yesterday');
  await page.getByTestId('prompt-lighting').fill('candle light');
  await page.locator('.structure > summary').click();
  await expect(page.getByTestId('prompt-subject')).toBeHidden();
  for (const size of WINDOW_SIZES) {
    await atWindowSize(page, size, async () => {
      const chips = page.getByTestId('structure-chip');
      await expect(chips).toHaveCount(2);
      for (const chip of await chips.all()) {
        await expectWhollyVisible(chip, `a chip at ${sizeName(size)}`);
        await expectClickable(chip.getByTestId('structure-clear'), 'its clear button');
      }
    });
  }
  const subject = page.locator('[data-testid="structure-chip"][data-field="subject"]');
  await expect(subject).toContainText('an old subject from yesterday');
  await subject.getByTestId('structure-clear').click();
  await expect(subject).toHaveCount(0);
  await expect(page.getByTestId('composed-prompt')).not.toContainText('old subject');
  await page.getByTestId('structure-clear-all').click();
  await expect(page.getByTestId('structure-in-use')).toHaveCount(0);
  await expect(page.getByTestId('composed-prompt')).toHaveCount(0);
});

test('a prompt sent before can be picked from the history, and it survives a reload', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  for (const prompt of ['A kite over dunes', 'A boat in fog']) {
    await generate.prompt().fill(prompt);
    await generate.size().selectOption('1024x1024');
    await generate.choose('param-quality', 'low');
    await generate.submit().click();
    await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  }
  await page.reload();
  await open(page, 'generate');
  await generate.prompt().fill('Something new');
  for (const size of WINDOW_SIZES) {
    await atWindowSize(page, size, async () => {
      await page.getByTestId('prompt-history-button').click();
      const items = page.getByTestId('prompt-history-item');
      await expect(items).toHaveText(['A boat in fog', 'A kite over dunes']);
      await expectWhollyVisible(items.last(), `the oldest entry at ${sizeName(size)}`);
      await expectClickable(items.last(), 'the oldest entry');
      await page.getByTestId('prompt-history-button').click();
    });
  }
  await page.getByTestId('prompt-history-button').click();
  await page.getByTestId('prompt-history-item').last().click();
  await expect(generate.prompt()).toHaveValue('A kite over dunes');
  await expect(page.getByTestId('prompt-history')).toBeHidden();
});
