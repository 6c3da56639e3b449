import { expect, type Locator, type Page } from '@playwright/test';
import { rgba } from './images';
import type { Studio } from './studio';

/** Raw RGBA pixels of an image, with a reader by pixel. */
export interface Pixels {
  width: number;
  height: number;
  data: Buffer;
  at(x: number, y: number): [number, number, number, number];
}

async function pixels(bytes: Buffer): Promise<Pixels> {
  const { data, width, height } = await rgba(bytes);
  return {
    width,
    height,
    data,
    at(x, y) {
      const i = (y * width + x) * 4;
      return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
    },
  };
}

interface LastEdit {
  at: number;
  image: string;
  mask: string | null;
}

async function lastEdit(studio: Studio): Promise<LastEdit | null> {
  const response = await fetch(`${studio.server.simUrl}/__sim/last-edit`, {
    headers: studio.server.simControl,
  });
  expect(response.ok, 'the simulator answers /__sim/last-edit').toBe(true);
  return ((await response.json()) as { last_edit: LastEdit | null }).last_edit;
}

/**
 * The first image and the mask of the first edit the simulator (the upstream) received at or
 * after `since` (ms since the epoch, the same machine's clock), read back through its control API
 * (`GET /__sim/last-edit`) once it has arrived, decoded to pixels.
 */
export async function upstreamEditInputs(
  studio: Studio,
  since: number,
): Promise<{ image: Pixels; mask: Pixels | null }> {
  let last: LastEdit | null = null;
  await expect
    .poll(async () => {
      last = await lastEdit(studio);
      return last ? last.at >= since : false;
    })
    .toBe(true);
  if (!last) throw new Error('the simulator received no edit');
  const { image, mask } = last as LastEdit;
  return {
    image: await pixels(Buffer.from(image, 'base64')),
    mask: mask ? await pixels(Buffer.from(mask, 'base64')) : null,
  };
}

export const decodePixels = pixels;

/**
 * Drags over `target` along points given as fractions of its box, Alt held when `alt`, with
 * `steps` pointer moves from each point to the next.
 */
export async function drag(
  page: Page,
  target: Locator,
  points: ReadonlyArray<[number, number]>,
  alt = false,
  steps = 8,
): Promise<void> {
  const box = await target.boundingBox();
  if (!box) throw new Error('nothing to drag on: the target is not visible');
  const at = ([x, y]: readonly [number, number]) =>
    [box.x + x * box.width, box.y + y * box.height] as const;
  if (alt) await page.keyboard.down('Alt');
  await page.mouse.move(...at(points[0]!));
  await page.mouse.down();
  for (const point of points.slice(1)) await page.mouse.move(...at(point), { steps });
  await page.mouse.up();
  if (alt) await page.keyboard.up('Alt');
}

/**
 * A pen stroke at one pressure, through Chromium's DevTools input (Playwright's mouse has no
 * pen): the page sees pointer events of type "pen" with `pressure` = `force`.
 */
export async function penStroke(
  page: Page,
  target: Locator,
  points: ReadonlyArray<[number, number]>,
  force: number,
): Promise<void> {
  const box = await target.boundingBox();
  if (!box) throw new Error('the canvas is not visible');
  const cdp = await page.context().newCDPSession(page);
  const at = ([fx, fy]: readonly [number, number]) => ({
    x: box.x + fx * box.width,
    y: box.y + fy * box.height,
  });
  const pen = { pointerType: 'pen' as const, force };
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at(points[0]!), ...pen });
  await cdp.send('Input.dispatchMouseEvent', {
    type: 'mousePressed',
    ...at(points[0]!),
    button: 'left',
    buttons: 1,
    clickCount: 1,
    ...pen,
  });
  for (const point of points.slice(1)) {
    await cdp.send('Input.dispatchMouseEvent', {
      type: 'mouseMoved',
      ...at(point),
      button: 'left',
      buttons: 1,
      ...pen,
    });
  }
  await cdp.send('Input.dispatchMouseEvent', {
    type: 'mouseReleased',
    ...at(points.at(-1)!),
    button: 'left',
    buttons: 0,
    clickCount: 1,
    ...pen,
  });
  await cdp.detach();
}

/** The mask canvas's RGBA at points given as fractions of the image, read in the page. */
export function overlayAt(page: Page, points: ReadonlyArray<[number, number]>) {
  return page.getByTestId('mask-canvas').evaluate((canvas: HTMLCanvasElement, at) => {
    const ctx = canvas.getContext('2d')!;
    return at.map(([fx, fy]) =>
      Array.from(
        ctx.getImageData(Math.floor(fx * canvas.width), Math.floor(fy * canvas.height), 1, 1).data,
      ),
    );
  }, points);
}

/** How many pixels of the mask canvas's column at `fx` (a fraction) carry the overlay. */
export function markedInColumn(page: Page, fx: number, from: number, to: number) {
  return page.getByTestId('mask-canvas').evaluate(
    (canvas: HTMLCanvasElement, { fx, from, to }) => {
      const x = Math.floor(fx * canvas.width);
      const y0 = Math.floor(from * canvas.height);
      const y1 = Math.floor(to * canvas.height);
      const data = canvas.getContext('2d')!.getImageData(x, y0, 1, y1 - y0).data;
      let marked = 0;
      let maxAlpha = 0;
      for (let i = 3; i < data.length; i += 4) {
        if (data[i]! > 0) marked++;
        maxAlpha = Math.max(maxAlpha, data[i]!);
      }
      return { marked, maxAlpha };
    },
    { fx, from, to },
  );
}
