import { expect, test } from '@playwright/test';
import { scriptFaults, upstreamReceived } from './support/api';
import { patternPng } from './support/images';
import { EditPage, GeneratePage, open, ready } from './support/pages';
import { useStudio } from './support/studio';

// A slow simulator: a high 1536x1024 image takes about 12 s, its three partials about 3 s apart,
// so a page can be reloaded between the first partial and the end.
const studio = useStudio({ simulatorSpeed: 5 });

interface UsageList {
  records: Array<{ requestId: string; status: number; images: number; errorCode: string | null }>;
}

const usageOf = async (prompt: string) => {
  const { images } = await studio.admin<{ images: Array<{ requestId: string }> }>(
    'GET',
    `/api/admin/images?q=${encodeURIComponent(prompt)}`,
  );
  return images;
};

test('a run goes on through a reload: the page takes it up, sees it finish, one usage row', async () => {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  const marker = `reload-me-${Date.now()}`;
  await generate.prompt().fill(`A harbour at dusk ${marker}`);
  await generate.size().selectOption('1536x1024');
  await generate.choose('param-quality', 'high');
  await expect(generate.stream()).toBeChecked();
  await generate.choose('param-partials', '3');
  await generate.submit().click();
  await expect(generate.partials().first()).toBeVisible();
  const [live] = await studio
    .admin<{ runs: Array<{ runId: string; requestId: string }> }>('GET', '/api/admin/runs/live')
    .then((r) => r.runs);
  expect(live).toBeDefined();

  // The window reloads mid-run: what it was reading is gone, the run is not.
  await page.reload();
  await ready(page, 'generate');
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  // It comes back from where the run is: its partial images, then the final one.
  await expect(generate.partials().first()).toBeVisible();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(generate.results()).toHaveCount(1);
  await studio.screenshot('generate-run-taken-up');

  // One row in Usage for it, delivered; its image in the gallery; nothing left running.
  await expect
    .poll(async () => {
      const { records } = await studio.admin<UsageList>('GET', '/api/admin/usage?limit=50');
      return records
        .filter((r) => r.requestId === live!.requestId)
        .map((r) => [r.status, r.images]);
    })
    .toEqual([[200, 1]]);
  await expect.poll(async () => (await usageOf(marker)).length).toBe(1);
  expect((await usageOf(marker))[0]!.requestId).toBe(live!.requestId);
  expect(await studio.admin('GET', '/api/admin/runs/live')).toEqual({ runs: [] });
});

test('a run left by a closed page is cancelled from a new one: the upstream call stops', async () => {
  const { page, context } = studio;
  // The upstream would take a minute to answer this one.
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 60_000 }]);
  const marker = `left-behind-${Date.now()}`;
  const first = await context.newPage();
  await first.goto(`${studio.server.url}/generate`);
  await ready(first, 'generate');
  const left = new GeneratePage(first);
  await left.prompt().fill(`A castle nobody waits for ${marker}`);
  await left.size().selectOption('1024x1024');
  await left.submit().click();
  await expect(left.status()).toHaveAttribute('data-phase', 'running');
  await upstreamReceived(studio, marker);
  const [run] = (
    await studio.admin<{ runs: Array<{ requestId: string }> }>('GET', '/api/admin/runs/live')
  ).runs;
  await first.close();

  // Another page opens the studio: the run is there, still running, and its Cancel stops it.
  await page.reload();
  await ready(page, 'generate');
  const generate = new GeneratePage(page);
  await expect(generate.status()).toHaveAttribute('data-phase', 'running');
  await generate.cancel().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'cancelled');
  await expect(generate.cancelOutcome()).toHaveAttribute('data-stopped', 'true');

  // The simulator saw its call aborted; the gateway recorded the run once, as cancelled.
  await expect
    .poll(async () => {
      const response = await fetch(`${studio.server.simUrl}/__sim/calls`, {
        headers: studio.server.simControl,
      });
      const { calls } = (await response.json()) as {
        calls: Array<{ prompt?: string; aborted?: boolean }>;
      };
      return calls.filter((call) => call.prompt?.includes(marker)).map((call) => call.aborted);
    })
    .toEqual([true]);
  await expect
    .poll(async () => {
      const { records } = await studio.admin<UsageList>('GET', '/api/admin/usage?limit=50');
      return records
        .filter((r) => r.requestId === run!.requestId)
        .map((r) => [r.status, r.images, r.errorCode]);
    })
    .toEqual([[499, 0, 'client_cancelled']]);
  expect(await studio.admin('GET', '/api/admin/runs/live')).toEqual({ runs: [] });
  expect(await usageOf(marker)).toEqual([]);
});

test('an Edit run taken up after a reload can be sent again: Retry sends the page’s kept work', async () => {
  const { page } = studio;
  const callsWith = async (marker: string) => {
    const response = await fetch(`${studio.server.simUrl}/__sim/calls`, {
      headers: studio.server.simControl,
    });
    const { calls } = (await response.json()) as { calls: Array<{ prompt?: string }> };
    return calls.filter((call) => call.prompt?.includes(marker)).length;
  };
  await scriptFaults(studio, [{ kind: 'slow', delayMs: 60_000 }]);
  const marker = `edit-again-${Date.now()}`;
  await open(page, 'edit');
  const edit = new EditPage(page);
  await edit.fileInput().setInputFiles({
    name: 'source.png',
    mimeType: 'image/png',
    buffer: await patternPng(256, 256, 5),
  });
  await expect(edit.references()).toHaveCount(1);
  // Kept by the gateway (a quiet moment after the change) before the page goes away.
  await expect
    .poll(async () => {
      const { files } = await studio.admin<{ files: Array<{ key: string }> }>(
        'GET',
        '/api/admin/studio/work',
      );
      if (!files.some((file) => file.key === 'edit-state')) return [];
      const record = JSON.parse(
        (await studio.adminBytes('/api/admin/studio/work/edit-state')).toString('utf8'),
      ) as { references: Array<{ name: string }> };
      return record.references.map((r) => r.name);
    })
    .toEqual(['source.png']);
  await edit.prompt().fill(`A lantern on the sill ${marker}`);
  await edit.submit().click();
  await page.getByTestId('send-without-mask').click();
  await upstreamReceived(studio, marker);

  // Reloaded mid-run: the page takes the run up, but the run's record has no images to send.
  await page.reload();
  await ready(page, 'edit');
  const status = page.getByTestId('run-status');
  await expect(status).toHaveAttribute('data-phase', 'running');
  await expect(edit.references()).toHaveCount(1);
  await page.getByRole('radio', { name: /^Result/ }).check();
  await page.getByTestId('cancel').click();
  await expect(status).toHaveAttribute('data-phase', 'cancelled');

  // Retry sends Edit's kept work again, as its own button would: the empty mask is asked about
  // the same way, then a second call reaches the upstream and finishes.
  await page.getByTestId('run-status').getByTestId('retry').click();
  await page.getByTestId('send-without-mask').click();
  await expect.poll(() => callsWith(marker)).toBe(2);
  await expect(status).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(edit.results()).toHaveCount(1);
});
