import { expect, test } from '@playwright/test';
import { checkDimensions } from '../../src/shared/sizeRules';
import { scriptFaults, upstreamReceived } from './support/api';
import { GeneratePage, open, ready } from './support/pages';
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

  // Record, in the page, the moment each kind of image element first appears and the previews
  // shown. The page itself watches: at this simulator speed the three previews and the final
  // image land within half a second, and a preview is replaced by the next (the same <img>
  // becomes the result), so a test that polled for a preview from outside could miss them all on
  // a busy machine.
  await page.evaluate(() => {
    const seen: { first: Record<string, number>; previews: number } = { first: {}, previews: 0 };
    (window as unknown as { __seen: typeof seen }).__seen = seen;
    new MutationObserver(() => {
      for (const id of ['partial-image', 'result-image']) {
        const image = document.querySelector(`[data-testid="${id}"]`);
        if (!image) continue;
        seen.first[id] ??= performance.now();
        if (id === 'partial-image')
          seen.previews = Math.max(seen.previews, Number(image.getAttribute('data-partial-count')));
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  await expect(generate.results()).toHaveCount(1);
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  const seen = await page.evaluate(
    () =>
      (window as unknown as { __seen: { first: Record<string, number>; previews: number } }).__seen,
  );
  expect(seen.first['partial-image'], 'a partial image was shown').toBeDefined();
  expect(seen.first['partial-image']!).toBeLessThan(seen.first['result-image']!);
  // React may batch two previews into one render when they arrive together; at least one shows.
  expect(seen.previews).toBeGreaterThanOrEqual(1);
  expect(seen.previews).toBeLessThanOrEqual(3);
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

test('the size checklist names every failing rule and offers the nearest valid size', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.size().selectOption('custom');
  // Too long, off the 16 px grid and wider than 3:1 at once; the pixel count is fine.
  await page.getByTestId('size-width').fill('4000');
  await page.getByTestId('size-height').fill('333');
  await expect(generate.sizeError()).toHaveAttribute(
    'data-rules',
    'max_edge multiple_of_16 aspect_ratio',
  );
  for (const words of ['at most 3840 px', 'multiple of 16 px', 'at most 3:1']) {
    await expect(generate.sizeError()).toContainText(words);
  }
  for (const row of ['max_edge', 'multiple_of_16', 'aspect_ratio']) {
    await expect(generate.sizeRule(row)).toHaveAttribute('data-state', 'fail');
  }
  await expect(generate.sizeRule('pixels')).toHaveAttribute('data-state', 'pass');
  await studio.screenshot('generate-size-rules');

  await page.getByTestId('size-nearest').click();
  await expect(page.getByTestId('size-ok')).toBeVisible();
  for (const row of ['max_edge', 'multiple_of_16', 'aspect_ratio', 'pixels']) {
    await expect(generate.sizeRule(row)).toHaveAttribute('data-state', 'pass');
  }
  const [w, h] = await Promise.all([
    page.getByTestId('size-width').inputValue(),
    page.getByTestId('size-height').inputValue(),
  ]);
  expect(checkDimensions(Number(w), Number(h))).toBeNull();
});

test('presets save, load (without reloading the page), survive a reload, and delete', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A fox in the snow, ink wash');
  await generate.size().selectOption('1024x1536');
  await generate.choose('param-quality', 'low');
  await generate.savePreset('Ink drafts');

  // A marker that a page reload would lose: loading a preset must not navigate.
  await page.evaluate(() => ((window as unknown as { __kept: boolean }).__kept = true));
  await generate.prompt().fill('Something else');
  await generate.size().selectOption('2048x2048');
  await generate.choose('param-quality', 'high');
  await generate.applyPreset('Ink drafts');
  // The artist's words stay (issue 22): the preset brings its parameters and its look.
  await expect(generate.prompt()).toHaveValue('Something else');
  await expect(generate.size()).toHaveValue('1024x1536');
  await expect(page.getByTestId('param-quality').locator('input[value="low"]')).toBeChecked();
  expect(await page.evaluate(() => (window as unknown as { __kept?: boolean }).__kept)).toBe(true);
  await studio.screenshot('generate-preset');

  await page.reload();
  await ready(page, 'generate');
  await generate.presetButton().click();
  await expect(generate.presetItem('Ink drafts')).toHaveAttribute('data-starter', 'false');
  await generate.presetItem('Ink drafts').getByTestId('preset-remove').click();
  await expect(generate.presetItem('Ink drafts')).toHaveCount(0);
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
]) {
  test(`starter presets, whole names, and undo of a delete at ${viewport.width}x${viewport.height}`, async () => {
    const { page } = studio;
    await page.setViewportSize(viewport);
    await open(page, 'generate');
    const generate = new GeneratePage(page);

    // The studio ships starters, marked as such, before anything is saved.
    await generate.presetButton().click();
    const starters = generate
      .presetMenu()
      .locator('[data-testid="preset-item"][data-starter="true"]');
    expect(await starters.count()).toBeGreaterThanOrEqual(4);
    const landscape = 'Wide landscape, 3:2, golden hour';
    await generate.applyPreset(landscape);
    await expect(generate.size()).toHaveValue('1536x1024');
    await expect(page.getByTestId('preset-current')).toHaveText(landscape);
    await expect(page.getByTestId('presets')).toContainText('Starter');

    // A long name is shown whole: it wraps inside the menu, and the title carries it too.
    const long = 'Moody harbour at night, long exposure, teal and amber, for the book cover series';
    await generate.prompt().fill('A harbour at night');
    await generate.savePreset(long);
    await generate.presetButton().click();
    const apply = generate.presetItem(long).getByTestId('preset-apply');
    await expect(apply).toHaveText(long);
    await expect(apply).toHaveAttribute('title', long);
    const fit = await apply.evaluate((el) => ({
      overflows: el.scrollWidth > el.clientWidth + 1,
      lines: Math.round(
        el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight),
      ),
      right: el.getBoundingClientRect().right,
    }));
    expect(fit.overflows, 'the name is not cut off sideways').toBe(false);
    expect(fit.right).toBeLessThanOrEqual(viewport.width);
    const menuBox = (await generate.presetMenu().boundingBox())!;
    expect(menuBox.x + menuBox.width).toBeLessThanOrEqual(viewport.width);
    await studio.screenshot(`generate-preset-menu-${viewport.width}`);

    // Delete, then Undo from the notice: the preset is back as it was.
    await generate.presetItem(long).getByTestId('preset-remove').click();
    await expect(generate.presetItem(long)).toHaveCount(0);
    const notice = page.getByTestId('preset-undo-notice');
    await expect(notice).toContainText(long);
    await page.getByTestId('preset-undo').click();
    await expect(notice).toBeHidden();
    await generate.prompt().fill('Something else');
    await generate.applyPreset(long);
    await expect(page.getByTestId('preset-current')).toHaveText(long);
    await expect(generate.prompt()).toHaveValue('Something else');

    // A starter can be hidden; the studio remembers it across a reload until it is shown again.
    await generate.presetButton().click();
    await generate.presetItem(landscape).getByTestId('preset-remove').click();
    await expect(generate.presetItem(landscape)).toHaveCount(0);
    await expect(notice).toContainText('Hid the starter preset');
    // Without Undo the offer goes after a few seconds and the change stays.
    await expect(notice).toBeHidden({ timeout: 30_000 });
    await page.reload();
    await ready(page, 'generate');
    await generate.presetButton().click();
    await expect(generate.presetItem(landscape)).toHaveCount(0);
    await page.getByTestId('preset-show-starters').click();
    await expect(generate.presetItem(landscape)).toHaveCount(1);
    await page.keyboard.press('Escape');
    await expect(generate.presetMenu()).toBeHidden();
    await expect(generate.presetButton()).toBeFocused();

    // Clean up for the other size's run: this browser keeps presets in localStorage.
    await generate.presetButton().click();
    await generate.presetItem(long).getByTestId('preset-remove').click();
    await expect(generate.presetItem(long)).toHaveCount(0);
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
}

test('Enter in a number field does not send; Ctrl+Enter does', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill('A paper boat');
  await generate.size().selectOption('custom');
  await page.getByTestId('size-width').fill('1024');
  await page.getByTestId('size-height').fill('1024');
  await page.evaluate(() => {
    const w = window as unknown as { __submits: number };
    w.__submits = 0;
    document
      .querySelector('form[aria-label="Request"]')!
      .addEventListener('submit', () => (w.__submits += 1));
  });
  // Key events are dispatched (and a form's implicit submission happens) before press() returns.
  await page.getByTestId('size-width').press('Enter');
  expect(await page.evaluate(() => (window as unknown as { __submits: number }).__submits)).toBe(0);
  // The shortcut sends from the same field.
  const [sent] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/v1/images/generations')),
    page.getByTestId('size-width').press('Control+Enter'),
  ]);
  expect(sent.status()).toBe(200);
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
});

test('cancel (Esc) stops the upstream work: nothing is made, billed or kept', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  // The upstream would take a minute to answer this one.
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 60_000 }]);
  const marker = `cancel-me-${Date.now()}`;
  await generate.prompt().fill(`A slow lighthouse ${marker}`);
  await generate.size().selectOption('1024x1024');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  await upstreamReceived(studio, marker);

  await page.keyboard.press('Escape');
  await expect(generate.status()).toHaveAttribute('data-phase', 'cancelled');
  await expect(generate.cancelOutcome()).toHaveAttribute('data-stopped', 'true');
  await studio.screenshot('generate-cancelled');

  // The gateway recorded it as cancelled long before the upstream's minute was up, with no
  // tokens, no cost and no image for the gallery.
  let record: { status: number; images: number; costMicros: number; latencyMs: number } | undefined;
  await expect
    .poll(async () => {
      const { records } = await studio.admin<{
        records: Array<{
          status: number;
          images: number;
          costMicros: number;
          latencyMs: number;
          requestId: string;
        }>;
      }>('GET', '/api/admin/usage?limit=1');
      record = records[0];
      return record?.status;
    })
    .toBe(499);
  expect(record).toMatchObject({ images: 0, costMicros: 0 });
  expect(record!.latencyMs).toBeLessThan(30_000);
  const { images } = await studio.admin<{ images: Array<{ prompt: string }> }>(
    'GET',
    `/api/admin/images?q=${marker}`,
  );
  expect(images).toEqual([]);
});

test('every run of the session stays, newest first: star or reject a variant; cancelled runs say so', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  const runs = page.getByTestId('session-run');
  const before = await runs.count();
  await generate.prompt().fill('A session keeper, two ways');
  await page.getByTestId('param-n').fill('2');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  await expect(runs).toHaveCount(before + 1);
  const newest = runs.first();
  await expect(newest).toHaveAttribute('data-phase', 'done');
  await expect(newest).toContainText('A session keeper, two ways');
  await expect(newest.getByTestId('session-image')).toHaveCount(2);
  // The run cancelled earlier in this session is kept, labelled, not looking live.
  const cancelled = page.locator('[data-testid="session-run"][data-phase="cancelled"]');
  await expect(cancelled.first()).toBeVisible();
  await expect(cancelled.first().getByTestId('session-run-phase')).toHaveText('Cancelled');

  const [first, second] = [
    newest.getByTestId('session-image').nth(0),
    newest.getByTestId('session-image').nth(1),
  ];
  await first.getByTestId('session-star').click();
  await expect(first).toHaveAttribute('data-mark', 'star');
  await expect(first.getByTestId('session-star')).toHaveAttribute('aria-pressed', 'true');
  await second.getByTestId('session-reject').click();
  await expect(second).toHaveAttribute('data-mark', 'reject');
  expect(
    Number(await second.locator('img').evaluate((e) => getComputedStyle(e).opacity)),
  ).toBeLessThan(0.5);
  await expect(page.getByTestId('session-runs')).toContainText('1 starred');
  await page.getByTestId('param-n').fill('1');
  await studio.screenshot('generate-session-runs');
});

test('a run that goes on while the person is elsewhere shows in the sidebar and says when it lands', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 4_000 }]);
  await generate.prompt().fill('A lighthouse finished in the background');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  await open(page, 'gallery');
  await expect(page.getByTestId('running-indicator')).toHaveAttribute('data-count', '1');
  await expect(page.getByTestId('nav-running-generate')).toBeVisible();
  const landed = page.getByTestId('run-landed');
  await expect(landed).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  await expect(landed).toContainText('Generate finished: 1 image ready.');
  await expect(page.getByTestId('running-indicator')).toHaveCount(0);
  await landed.getByTestId('run-landed-open').click();
  await expect(page.getByTestId('page-generate')).toBeVisible();
  await expect(landed).toHaveCount(0);
  await expect(page.getByTestId('session-run').first()).toContainText(
    'A lighthouse finished in the background',
  );
});

test('waiting shows the time against the usual for this size and quality, and the previews so far', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.size().selectOption('1024x1536');
  await generate.choose('param-quality', 'low');
  // The first run of this size and quality has nothing to be timed against.
  await generate.prompt().fill('A tall lighthouse, timed');
  await generate.submit().click();
  await expect(page.getByTestId('expected-time')).toContainText('No earlier run');
  await expect(generate.status()).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  // Its usage record (written just after the reply) is what the next run is timed against.
  await expect
    .poll(async () => {
      const { records } = await studio.admin<{
        records: Array<{ size: string | null; quality: string | null; status: number }>;
      }>('GET', '/api/admin/usage?status=success&limit=20');
      return records.some((r) => r.size === '1024x1536' && r.quality === 'low');
    })
    .toBe(true);

  // The second is: a bar of its elapsed time against the first one's, and its previews counted.
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 3_000 }]);
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  const expected = page.getByTestId('expected-time');
  await expect(expected).toContainText(/of about \d+\.\d s/);
  expect(Number(await expected.getAttribute('data-expected-ms'))).toBeGreaterThan(0);
  await expect(expected.getByRole('progressbar')).toBeVisible();
  await expect(page.getByTestId('previews')).toContainText(/\d of \d+ previews/);
  await expect(page.getByTestId('image-slot').first()).toContainText('on its way');
  await expect(generate.status()).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  await expect(expected).toContainText(/Took \d+\.\d s; usually about \d+\.\d s\./);
});

test('the structure fields take long text: full width, growing, and the prompt sent is readable', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const composer = page.locator('details.structure');
  if (!(await composer.evaluate((d) => (d as HTMLDetailsElement).open))) {
    await composer.locator('summary').click();
  }
  const subject = page.getByTestId('prompt-subject');
  const long =
    'An old lighthouse keeper in a yellow oilskin coat, holding a brass lantern, ' +
    'his dog beside him, both looking out to sea where a storm is gathering over the rocks';
  await subject.fill(long);
  const box = (await subject.boundingBox())!;
  const form = (await page.locator('.compose-panel').boundingBox())!;
  // As wide as the form, and tall enough that nothing typed is cut off.
  expect(box.width).toBeGreaterThan(form.width * 0.8);
  expect(await subject.evaluate((e) => e.scrollHeight - e.clientHeight)).toBeLessThanOrEqual(1);
  expect(box.height).toBeGreaterThan(45);
  const composed = page.getByTestId('composed-prompt');
  await expect(composed).toContainText(long);
  expect(await composed.evaluate((e) => e.scrollHeight - e.clientHeight)).toBeLessThanOrEqual(1);
  await subject.fill('');
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
]) {
  test(`plain words at ${viewport.width}x${viewport.height}: the request id is small, copyable and explained; the model says what it is`, async () => {
    const { page } = studio;
    await page.setViewportSize(viewport);
    await open(page, 'generate');
    const generate = new GeneratePage(page);

    // The model picker says what each model is, from the one shared list of descriptions.
    await generate.showAllParams();
    const modelField = page.locator('.field', { has: page.getByTestId('param-model') });
    await expect(modelField.locator('.field-hint')).toContainText('newest version');
    await page.getByTestId('param-model').selectOption('image-model-2-2026-04-21');
    await expect(modelField.locator('.field-hint')).toContainText('21 April 2026');
    await page.getByTestId('param-model').selectOption('image-model-2');

    await generate.prompt().fill(`A signpost at ${viewport.width}`);
    await page.getByTestId('param-n').fill('1');
    await generate.submit().click();
    await expect(generate.status()).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
    const chip = page.getByTestId('run-request-id');
    await expect(chip).toBeVisible();
    await expect(chip).toHaveAttribute('title', /Usage page/);
    const id = await page.getByTestId('run-request-id-value').innerText();
    expect(id).toMatch(/^req_[A-Za-z0-9]+$/);
    // It is the id the usage log knows this run by.
    await expect
      .poll(async () =>
        (
          await studio.admin<{ records: Array<{ requestId: string; prompt: string | null }> }>(
            'GET',
            '/api/admin/usage?limit=5',
          )
        ).records.some((r) => r.requestId === id),
      )
      .toBe(true);
    // Small, beside the cost rather than shouting, and whole within the status panel.
    const size = await chip.evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
    expect(size).toBeLessThanOrEqual(13);
    const [chipBox, statusBox] = [await chip.boundingBox(), await generate.status().boundingBox()];
    expect(chipBox!.x + chipBox!.width).toBeLessThanOrEqual(statusBox!.x + statusBox!.width + 1);
    await chip.scrollIntoViewIfNeeded();
    await expect(chip.getByRole('button', { name: 'Copy the request id' })).toBeInViewport();
    await studio.screenshot(`generate-request-id-${viewport.width}`);
    await page.setViewportSize({ width: 1440, height: 900 });
  });
}
