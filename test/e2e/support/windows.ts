import { expect, type Locator, type Page } from '@playwright/test';

/** A window size a person uses the studio at. */
export interface WindowSize {
  width: number;
  height: number;
}

/**
 * The four windows issue 22 was tried at: a small laptop, a common laptop, the suite's default and
 * a large desktop screen.
 */
export const WINDOW_SIZES: readonly WindowSize[] = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 2560, height: 1440 },
];

/** The size every spec starts at (support/browser.ts) and goes back to. */
export const DEFAULT_WINDOW: WindowSize = { width: 1440, height: 900 };

export const sizeName = (size: WindowSize): string => `${size.width}x${size.height}`;

/**
 * Runs `body` with the window at `size`, then puts it back to the default size, also when `body`
 * fails, so the next test of the file starts where every test expects.
 */
export async function atWindowSize<T>(
  page: Page,
  size: WindowSize,
  body: () => Promise<T>,
): Promise<T> {
  await page.setViewportSize(size);
  try {
    return await body();
  } finally {
    await page.setViewportSize(DEFAULT_WINDOW);
  }
}

/** The width a scrollbar takes in this browser: 0 when scrollbars are hidden (overlay or flag). */
export async function scrollbarWidth(page: Page): Promise<number> {
  return page.evaluate(() => {
    const probe = document.createElement('div');
    probe.style.cssText = 'position:absolute;top:0;left:0;width:100px;height:100px;overflow:scroll';
    document.body.append(probe);
    const width = probe.offsetWidth - probe.clientWidth;
    probe.remove();
    return width;
  });
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where a person sees the element: its box clipped by the window and by every ancestor that clips
 * (overflow other than visible). `hidden` lists the ancestors that cut part of it off.
 */
export async function visibleBox(
  locator: Locator,
): Promise<{ box: Rect; visible: Rect | null; clippedBy: string[] }> {
  return locator.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    let left = Math.max(rect.left, 0);
    let top = Math.max(rect.top, 0);
    let right = Math.min(rect.right, window.innerWidth);
    let bottom = Math.min(rect.bottom, window.innerHeight);
    const clippedBy: string[] = [];
    const describe = (node: Element) =>
      node.getAttribute('data-testid') ??
      `${node.tagName.toLowerCase()}${node.className ? `.${String(node.className).split(' ')[0]}` : ''}`;
    if (left > rect.left + 0.5 || top > rect.top + 0.5) clippedBy.push('window');
    else if (right < rect.right - 0.5 || bottom < rect.bottom - 0.5) clippedBy.push('window');
    for (let node = element.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      const clipsX = style.overflowX !== 'visible';
      const clipsY = style.overflowY !== 'visible';
      if (!clipsX && !clipsY) continue;
      // The padding box minus the scrollbars: what the ancestor shows of its content.
      const outer = node.getBoundingClientRect();
      const clipLeft = outer.left + node.clientLeft;
      const clipTop = outer.top + node.clientTop;
      const clipRight = clipLeft + node.clientWidth;
      const clipBottom = clipTop + node.clientHeight;
      const cuts =
        (clipsX && (rect.left < clipLeft - 0.5 || rect.right > clipRight + 0.5)) ||
        (clipsY && (rect.top < clipTop - 0.5 || rect.bottom > clipBottom + 0.5));
      if (cuts) clippedBy.push(describe(node));
      if (clipsX) {
        left = Math.max(left, clipLeft);
        right = Math.min(right, clipRight);
      }
      if (clipsY) {
        top = Math.max(top, clipTop);
        bottom = Math.min(bottom, clipBottom);
      }
    }
    const box = { x: rect.left, y: rect.top, width: rect.width, height: rect.height };
    const visible =
      right > left && bottom > top
        ? { x: left, y: top, width: right - left, height: bottom - top }
        : null;
    return { box, visible, clippedBy };
  });
}

/** The element is whole where a person sees it: nothing of it cut off by the window or a parent. */
export async function expectWhollyVisible(locator: Locator, what: string): Promise<void> {
  const { clippedBy, box } = await visibleBox(locator);
  expect(clippedBy, `${what} (${JSON.stringify(box)}) is cut off by`).toEqual([]);
}

/**
 * A click at the middle of what shows of the element reaches it: nothing (a page, a sticky bar, a
 * canvas) is drawn over it there.
 */
export async function expectClickable(locator: Locator, what: string): Promise<void> {
  const { visible } = await visibleBox(locator);
  expect(visible, `${what} shows at all`).not.toBeNull();
  const hit = await locator.evaluate(
    (element, point) => {
      const top = document.elementFromPoint(point.x, point.y);
      if (!top) return 'nothing';
      if (element === top || element.contains(top)) return 'itself';
      return (
        top.getAttribute('data-testid') ?? `${top.tagName.toLowerCase()}.${String(top.className)}`
      );
    },
    { x: visible!.x + visible!.width / 2, y: visible!.y + visible!.height / 2 },
  );
  expect(hit, `what a click on ${what} reaches`).toBe('itself');
}

/**
 * How many different boxes the elements took over `frames` animation frames in the page: 1 when
 * the layout holds still.
 */
export async function layoutsOverFrames(locator: Locator, frames: number): Promise<number> {
  return locator.first().evaluate(async (first, count) => {
    const container = first.parentElement ?? first;
    const seen = new Set<string>();
    for (let i = 0; i < count; i += 1) {
      await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
      const boxes = [...container.children].map((child) => {
        const r = child.getBoundingClientRect();
        return `${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)}`;
      });
      seen.add(boxes.join(';'));
    }
    return seen.size;
  }, frames);
}

/**
 * The part of an `<img>` the picture covers: with `object-fit: contain` the element's box can be
 * larger than the picture drawn in it (letterboxed), and a person sees the picture.
 */
export async function paintedBox(image: Locator): Promise<Rect> {
  return image.evaluate((element) => {
    const img = element as HTMLImageElement;
    const box = img.getBoundingClientRect();
    const fit = getComputedStyle(img).objectFit;
    if (fit !== 'contain' || !img.naturalWidth || !img.naturalHeight) {
      return { x: box.left, y: box.top, width: box.width, height: box.height };
    }
    const scale = Math.min(box.width / img.naturalWidth, box.height / img.naturalHeight);
    const width = img.naturalWidth * scale;
    const height = img.naturalHeight * scale;
    return {
      x: box.left + (box.width - width) / 2,
      y: box.top + (box.height - height) / 2,
      width,
      height,
    };
  });
}

/**
 * Scroll areas one inside another (a page that scrolls around a panel that scrolls too): each as
 * `outer > inner`, the window's own scrolling named `window`. Text fields and code are left out.
 */
export async function nestedScrollAreas(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const describe = (node: Element) =>
      node.getAttribute('data-testid') ??
      `${node.tagName.toLowerCase()}${node.className ? `.${String(node.className).trim().split(/\s+/).join('.')}` : ''}`;
    const scrolls = (node: Element) => {
      const style = getComputedStyle(node);
      const y = /(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight + 1;
      const x = /(auto|scroll)/.test(style.overflowX) && node.scrollWidth > node.clientWidth + 1;
      return y || x;
    };
    const root = document.scrollingElement ?? document.documentElement;
    const windowScrolls =
      root.scrollHeight > window.innerHeight + 1 || root.scrollWidth > window.innerWidth + 1;
    // The page's own areas (the sidebar is the studio's, not the page's).
    const areas = [...document.querySelectorAll('#content, #content *')].filter(
      (node) =>
        !['TEXTAREA', 'PRE', 'SELECT', 'INPUT'].includes(node.tagName) &&
        node.closest('dialog') === null &&
        scrolls(node),
    );
    const nested: string[] = [];
    for (const area of areas) {
      const outer = areas.find((other) => other !== area && other.contains(area));
      if (outer) nested.push(`${describe(outer)} > ${describe(area)}`);
      else if (windowScrolls) nested.push(`window > ${describe(area)}`);
    }
    return nested;
  });
}
