import { readFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import type { ImageRecord } from '../../src/shared/admin';
import { createKey, generate, settled } from './support/api';
import { GalleryPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

const FOX = 'A fox sleeping in autumn leaves';
const LIGHTHOUSE = 'A lighthouse on a cliff at dusk';
const HARBOUR = 'A quiet harbour at dawn';
const EDITED = 'Turn the middle into a river';
let images: ImageRecord[] = [];

/** A masked edit through /v1/images/edits (multipart), as another app would send it. */
async function maskedEdit(key: string) {
  const size = 256;
  const image = await sharp({
    create: { width: size, height: size, channels: 3, background: '#446688' },
  })
    .png()
    .toBuffer();
  const alpha = Buffer.alloc(size * size * 4);
  for (let i = 0; i < size * size; i++) alpha[i * 4 + 3] = i % size < size / 2 ? 0 : 255;
  const mask = await sharp(alpha, { raw: { width: size, height: size, channels: 4 } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('model', 'image-model-2');
  form.set('prompt', EDITED);
  form.set('size', '1024x1024');
  form.set('quality', 'low');
  form.set('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'image.png');
  form.set('mask', new Blob([new Uint8Array(mask)], { type: 'image/png' }), 'mask.png');
  const res = await fetch(`${studio.server.url}/v1/images/edits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The text chunks of a PNG, each checked against its CRC (zlib's, not the studio's code). */
function pngText(png: Uint8Array): Map<string, string> {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out = new Map<string, string>();
  let at = 8;
  while (at < png.length) {
    const length = view.getUint32(at);
    const type = Buffer.from(png.subarray(at + 4, at + 8)).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    expect(view.getUint32(at + 8 + length), `CRC of ${type}`).toBe(
      crc32(png.subarray(at + 4, at + 8 + length)),
    );
    if (type === 'iTXt' || type === 'tEXt') {
      const zero = data.indexOf(0);
      const keyword = Buffer.from(data.subarray(0, zero)).toString('latin1');
      if (type === 'tEXt') {
        out.set(keyword, Buffer.from(data.subarray(zero + 1)).toString('latin1'));
      } else {
        // compression flag and method, then language tag \0 and translated keyword \0.
        expect(data[zero + 1], 'iTXt stored uncompressed').toBe(0);
        const language = data.indexOf(0, zero + 3);
        const translated = data.indexOf(0, language + 1);
        out.set(keyword, Buffer.from(data.subarray(translated + 1)).toString('utf8'));
      }
    }
    if (type === 'IEND') break;
    at += 12 + length;
  }
  return out;
}

test.beforeAll(async () => {
  const alpha = await createKey(studio, 'alpha app');
  const beta = await createKey(studio, 'beta app');
  await generate(studio, alpha.key, LIGHTHOUSE);
  await generate(studio, beta.key, FOX, {
    model: 'image-model-2-2026-04-21',
    size: '1536x1024',
  });
  await generate(studio, alpha.key, HARBOUR);
  await maskedEdit(beta.key);
  await settled(studio, 'images', 4);
  images = (await studio.admin<{ images: ImageRecord[] }>('GET', '/api/admin/images?limit=50'))
    .images;
});

test('Ctrl/Cmd- and Shift-click select images; the ZIP holds each PNG with its metadata inside and beside it', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  await expect(gallery.tiles()).toHaveCount(4);
  const count = page.getByTestId('selection-count');

  // Ctrl/Cmd-click picks one (and opens no details), Shift-click extends to a range, Ctrl/Cmd
  // on a picked one drops it.
  await gallery
    .tiles()
    .nth(0)
    .click({ modifiers: ['ControlOrMeta'] });
  await expect(count).toHaveText('1 image selected');
  await expect(page.getByTestId('image-detail')).toHaveCount(0);
  await gallery
    .tiles()
    .nth(3)
    .click({ modifiers: ['Shift'] });
  await expect(count).toHaveText('4 images selected');
  await gallery
    .tiles()
    .nth(2)
    .click({ modifiers: ['ControlOrMeta'] });
  await expect(count).toHaveText('3 images selected');
  await expect(gallery.tiles().nth(2)).toHaveAttribute('data-picked', 'false');
  await expect(gallery.tiles().nth(1)).toHaveAttribute('data-picked', 'true');
  const picked = [0, 1, 3].map((i) => images[i]!);
  expect(picked.map((i) => i.prompt)).toContain(EDITED);
  await studio.screenshot('gallery-selection');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('selection-export').click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^atelier-export-\d{8}-\d{4}-3-images\.zip$/);
  const entries = unzipSync(new Uint8Array(await readFile((await download.path())!)));
  const names = Object.keys(entries);
  const pngs = names.filter((n) => n.endsWith('.png') && !n.endsWith('.mask.png'));
  expect(pngs).toHaveLength(3);
  expect(names.filter((n) => n.endsWith('.json'))).toHaveLength(3);

  for (const name of pngs) {
    const stem = name.slice(0, -'.png'.length);
    const sidecar = JSON.parse(new TextDecoder().decode(entries[`${stem}.json`])) as {
      id: string;
      prompt: string;
      parameters: { model: string; requestedSize: string };
      cost: { micros: number };
      apiKey: { name: string } | null;
      mask: { file: string } | null;
    };
    const record = picked.find((i) => i.id === sidecar.id)!;
    expect(record, `${name} is one of the picked images`).toBeDefined();
    expect(sidecar).toMatchObject({
      prompt: record.prompt,
      parameters: { model: record.model, requestedSize: record.requestedSize },
      cost: { micros: record.costMicros },
    });
    expect(sidecar.apiKey?.name).toMatch(/^(alpha|beta) app$/);

    // Inside the PNG: the same JSON (iTXt `atelier`), the prompt as Description; the pixels are
    // the gallery file's.
    const text = pngText(entries[name]!);
    expect(JSON.parse(text.get('atelier')!)).toEqual(sidecar);
    expect(text.get('Description')).toBe(record.prompt);
    const original = await studio.adminBytes(`/api/admin/images/${record.id}/file`);
    const [a, b] = await Promise.all([
      sharp(original).raw().toBuffer(),
      sharp(Buffer.from(entries[name]!)).raw().toBuffer(),
    ]);
    expect(a.equals(b)).toBe(true);

    if (record.hasMask) {
      expect(sidecar.mask).toMatchObject({ file: `${stem}.mask.png` });
      const mask = await studio.adminBytes(`/api/admin/images/${record.id}/mask`);
      expect(Buffer.from(entries[`${stem}.mask.png`]!).equals(mask)).toBe(true);
    } else {
      expect(sidecar.mask).toBeNull();
    }
  }

  await page.getByTestId('selection-clear').click();
  await expect(page.getByTestId('selection-bar')).toHaveCount(0);
});

test('select mode (for touch): a plain click toggles; Done leaves it', async () => {
  const { page } = studio;
  const gallery = new GalleryPage(page);
  await page.getByTestId('gallery-select-mode').click();
  await expect(page.getByTestId('selection-count')).toHaveText('Click images to select them.');
  await gallery.tiles().nth(1).click();
  await gallery.tiles().nth(2).click();
  await expect(page.getByTestId('selection-count')).toHaveText('2 images selected');
  await expect(page.getByTestId('image-detail')).toHaveCount(0);
  await gallery.tiles().nth(1).click();
  await expect(page.getByTestId('selection-count')).toHaveText('1 image selected');
  await page.getByTestId('selection-clear').click();
  await expect(page.getByTestId('gallery-select-mode')).toHaveAttribute('aria-pressed', 'false');
  // Out of select mode a click opens the details again.
  await gallery.tiles().nth(1).click();
  await expect(page.getByTestId('image-detail')).toBeVisible();
});

test('search by prompt, model, size, key and date, alone and together', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  // One read of every tile at once: a tile read one by one may be gone by the time it is asked.
  const prompts = () =>
    gallery
      .tiles()
      .evaluateAll((tiles) =>
        tiles.map((t) => (t.getAttribute('aria-label') ?? '').replace(/, \d+ by \d+.*$/, '')),
      );
  // Each search differs from the one before: wait for its own answer, so a list that happens to
  // equal the expected one before the search ran does not pass.
  const search = async (text: string, expected: string[]) => {
    const answered = page.waitForResponse((r) => r.url().includes('/api/admin/images?'));
    await gallery.search().fill(text);
    await answered;
    await expect
      .poll(async () => (await prompts()).sort(), { message: text })
      .toEqual([...expected].sort());
  };

  await search('lighthouse', [LIGHTHOUSE]);
  await search('model:image-model-2-2026-04-21', [FOX]);
  await search('size:1536x1024', [FOX]);
  await search('key:"alpha app"', [LIGHTHOUSE, HARBOUR]);
  await search('key:"BETA APP" river', [EDITED]);
  const today = await page.evaluate(() => {
    const d = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  });
  await search(`date:${today}`, [LIGHTHOUSE, FOX, HARBOUR, EDITED]);
  await search(`date:${today} size:1024x1024 key:"alpha app" harbour`, [HARBOUR]);
  await gallery.search().fill('date:2001-01-01');
  await expect(page.getByTestId('gallery-empty')).toBeVisible();

  // What cannot be read is named, and the rest of the search still runs.
  await gallery.search().fill('fox size:huge key:nobody');
  await expect(page.getByText('size: "huge" is not a size like 1024x1536')).toBeVisible();
  await expect(page.getByText('key: no API key is named "nobody"')).toBeVisible();
  await expect.poll(prompts).toEqual([FOX]);
  await gallery.search().fill('');
  await expect(gallery.tiles()).toHaveCount(4);
});

test('dragging a tile out carries the file: DownloadURL, uri-list and the image bytes behind it', async () => {
  const { page } = studio;
  await open(page, 'gallery');
  const gallery = new GalleryPage(page);
  const fox = images.find((i) => i.prompt === FOX)!;
  const tile = gallery.tile(fox.id);
  await expect(tile).toHaveAttribute('draggable', 'true');
  const dataTransfer = await page.evaluateHandle(() => new DataTransfer());
  await tile.dispatchEvent('dragstart', { dataTransfer });
  const data = await dataTransfer.evaluate((dt) => ({
    downloadUrl: dt.getData('DownloadURL'),
    uriList: dt.getData('text/uri-list'),
    text: dt.getData('text/plain'),
  }));
  const fileUrl = `${studio.server.url}/api/admin/images/${fox.id}/file`;
  expect(data.downloadUrl).toMatch(/^image\/png:atelier-\d{8}-\d{6}-1\.png:/);
  expect(data.downloadUrl.endsWith(`:${fileUrl}`)).toBe(true);
  expect(data).toMatchObject({ uriList: fileUrl, text: fileUrl });

  // A real mouse drag (Chromium's own drag session) onto a drop target: the link arrives.
  await page.evaluate(() => {
    const target = document.createElement('div');
    target.id = 'drop-probe';
    target.style.cssText = 'position:fixed;right:0;bottom:0;width:160px;height:160px;z-index:99';
    target.addEventListener('dragover', (e) => e.preventDefault());
    target.addEventListener('drop', (e) => {
      e.preventDefault();
      target.dataset.dropped = e.dataTransfer?.getData('text/uri-list') ?? '';
    });
    document.body.append(target);
  });
  await tile.dragTo(page.locator('#drop-probe'));
  await expect(page.locator('#drop-probe')).toHaveAttribute('data-dropped', fileUrl);
  await page.evaluate(() => document.getElementById('drop-probe')?.remove());
  // The URL serves the image itself to the browser that drags it (its session).
  const served = await page.evaluate(async (url) => {
    const res = await fetch(url, { headers: { 'x-atelier-studio': '1' } });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      size: (await res.blob()).size,
    };
  }, fileUrl);
  expect(served).toEqual({ status: 200, type: 'image/png', size: fox.bytes });
});
