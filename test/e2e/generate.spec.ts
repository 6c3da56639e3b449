import { expect, test } from '@playwright/test';
import { GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

test('partial images stream in before the final image', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A lighthouse keeper in a yellow coat, watercolour');
  await generate.size().selectOption('1536x1024');
  await generate.choose('param-quality', 'high');
  await expect(generate.stream()).toBeChecked();
  await generate.choose('param-partials', '3');

  // Record, in the page, the moment each kind of image element first appears.
  await page.evaluate(() => {
    const seen: Record<string, number> = {};
    (window as unknown as { __seen: typeof seen }).__seen = seen;
    new MutationObserver(() => {
      for (const id of ['partial-image', 'result-image']) {
        if (!(id in seen) && document.querySelector(`[data-testid="${id}"]`))
          seen[id] = performance.now();
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  await expect(generate.partials().first()).toBeAttached();
  await expect(generate.results()).toHaveCount(1);
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  const seen = await page.evaluate(
    () => (window as unknown as { __seen: Record<string, number> }).__seen,
  );
  expect(seen['partial-image'], 'a partial image was shown').toBeDefined();
  expect(seen['partial-image']!).toBeLessThan(seen['result-image']!);
  await expect(page.getByTestId('actual-cost')).toHaveAttribute('data-cost-micros', /^[1-9]\d*$/);
  await studio.screenshot('generate-streamed');
});

test('a custom size is refused with the failing rule named, in the form and by the gateway', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.size().selectOption('custom');
  await page.getByTestId('size-width').fill('1000');
  await page.getByTestId('size-height').fill('1000');
  await expect(generate.sizeError()).toHaveAttribute('data-rule', 'multiple_of_16');
  await expect(generate.sizeError()).toContainText('multiple of 16');
  await page.getByTestId('size-width').fill('3008');
  await page.getByTestId('size-height').fill('992');
  await expect(generate.sizeError()).toHaveAttribute('data-rule', 'aspect_ratio');
  await expect(generate.sizeError()).toContainText('3:1');

  // Nothing is sent while the size is invalid...
  await generate.submit().click();
  await expect(page.locator('#generate-blockers')).toContainText('3:1');
  await expect(generate.status()).not.toHaveAttribute('data-phase', 'running');
  await studio.screenshot('generate-size-refused');

  // ...and the gateway refuses it on its own, naming the parameter and the rule.
  studio.allowConsole(/status of 400/);
  const answer = await page.evaluate(async () => {
    const response = await fetch('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-atelier-studio': '1' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'x', size: '3008x992' }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error: { param: string; message: string } },
    };
  });
  expect(answer.status).toBe(400);
  expect(answer.body.error.param).toBe('size');
  expect(answer.body.error.message).toContain('3:1');
});
