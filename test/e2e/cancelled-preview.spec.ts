import { expect, test } from '@playwright/test';
import { GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';
import { atWindowSize, expectWhollyVisible, sizeName, WINDOW_SIZES } from './support/windows';

// A slow simulator (2048x2048 high: about 3 s between previews), so a preview is on screen while
// the run is still going, and Cancel lands before the final image.
const studio = useStudio({ simulatorSpeed: 2 });

test('a cancelled preview looks cancelled: faded, grey, and saying so, at every window size', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A glasshouse in the rain');
  await generate.size().selectOption('2048x2048');
  await generate.choose('param-quality', 'high');
  await generate.showAllParams();
  await expect(generate.stream()).toBeChecked();
  await generate.choose('param-partials', '3');
  await generate.submit().click();
  const preview = generate.partials().first();
  await expect(preview).toBeAttached({ timeout: 30_000 });
  const slot = page.getByTestId('image-slot').first();
  const badge = slot.getByTestId('slot-badge');
  // While it runs, a preview is a preview, at full strength.
  await expect(badge).toHaveText(/^Preview \d \/ 3$/);
  expect(Number(await preview.evaluate((e) => getComputedStyle(e).opacity))).toBe(1);

  await generate.cancel().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'cancelled');
  await expect(slot).toHaveAttribute('data-stopped', 'cancelled');
  await expect(badge).toHaveText(/^Cancelled at preview \d of 3$/);
  await expect(preview).toHaveAttribute('alt', /cancelled at preview \d of 3/);
  const look = await preview.evaluate((e) => {
    const style = getComputedStyle(e);
    return { opacity: Number(style.opacity), filter: style.filter };
  });
  expect(look.opacity).toBeLessThan(0.5);
  expect(look.filter).toContain('grayscale(1)');
  for (const size of WINDOW_SIZES) {
    await atWindowSize(page, size, async () => {
      await expectWhollyVisible(badge, `the badge at ${sizeName(size)}`);
      await expectWhollyVisible(preview, `the cancelled preview at ${sizeName(size)}`);
    });
  }
  await studio.screenshot('generate-cancelled-preview');
});
