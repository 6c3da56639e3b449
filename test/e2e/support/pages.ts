import { readFile } from 'node:fs/promises';
import { expect, type Locator, type Page } from '@playwright/test';

/** Page ids as routes.ts names them: `page-<id>` roots and `nav-<label>` links. */
export const PAGES = [
  'home',
  'generate',
  'edit',
  'gallery',
  'usage',
  'keys',
  'accounts',
  'server',
  'settings',
] as const;
export type PageId = (typeof PAGES)[number];

const LABEL: Record<PageId, string> = {
  home: 'home',
  generate: 'generate',
  edit: 'edit',
  gallery: 'gallery',
  usage: 'usage',
  keys: 'keys',
  accounts: 'accounts',
  server: 'server',
  settings: 'settings',
};

/** Picks an option of a segmented control (radio buttons drawn as joined buttons). */
export async function choose(page: Page, testId: string, value: string): Promise<void> {
  const group = page.getByTestId(testId);
  await group.locator('label', { has: page.locator(`input[value="${value}"]`) }).click();
  await expect(group.locator(`input[value="${value}"]`)).toBeChecked();
}

/** The page root, once its data has loaded (`data-ready="true"`: no sleeping). */
export async function ready(page: Page, id: PageId): Promise<Locator> {
  const root = page.getByTestId(`page-${id}`);
  await expect(root).toHaveAttribute('data-ready', 'true');
  return root;
}

/** In-app navigation through the sidebar, as a person clicks it. */
export async function open(page: Page, id: PageId): Promise<Locator> {
  await page.getByTestId(`nav-${LABEL[id]}`).click();
  return ready(page, id);
}

export class GeneratePage {
  constructor(readonly page: Page) {}
  prompt = () => this.page.getByTestId('prompt');
  size = () => this.page.getByTestId('param-size');
  quality = () => this.page.getByTestId('param-quality');
  stream = () => this.page.getByTestId('param-stream');
  submit = () => this.page.getByTestId('generate-submit');
  status = () => this.page.getByTestId('run-status');
  results = () => this.page.getByTestId('result-image');
  partials = () => this.page.getByTestId('partial-image');
  sizeError = () => this.page.getByTestId('size-error');
  /** One row of the live size checklist: `max_edge`, `multiple_of_16`, `aspect_ratio`, `pixels`. */
  sizeRule = (row: string) => this.page.locator(`[data-testid="size-rule"][data-row="${row}"]`);
  cancel = () => this.page.getByTestId('cancel');
  cancelOutcome = () => this.page.getByTestId('cancel-outcome');
  /** The preset menu's button; it names the preset applied last. */
  presetButton = () => this.page.getByTestId('preset-menu-button');
  presetMenu = () => this.page.getByTestId('preset-menu');
  /** A row of the open preset menu, by the preset's full name. */
  presetItem = (name: string) =>
    this.presetMenu().locator(`[data-testid="preset-item"][data-name="${name}"]`);

  choose = (testId: string, value: string) => choose(this.page, testId, value);

  /**
   * Opens the drawer of the less used parameters (model, format, background, previews) where a
   * narrow window folds them; wide windows show them all.
   */
  async showAllParams() {
    const drawer = this.page.getByTestId('params-more');
    if ((await drawer.count()) === 0) return;
    if ((await drawer.getAttribute('open')) === null) {
      await this.page.getByTestId('params-more-toggle').click();
    }
    await expect(drawer).toHaveAttribute('open', '');
  }

  /** Saves the form as a preset through the preset bar. */
  async savePreset(name: string) {
    await this.page.getByTestId('preset-new').click();
    await this.page.getByTestId('preset-name').fill(name);
    await this.page.getByTestId('preset-save').click();
    await expect(this.page.getByTestId('preset-current')).toHaveText(name);
  }

  /** Opens the preset menu (if closed) and applies the preset of that name. */
  async applyPreset(name: string) {
    if (!(await this.presetMenu().isVisible())) await this.presetButton().click();
    await this.presetItem(name).getByTestId('preset-apply').click();
    await expect(this.presetMenu()).toBeHidden();
  }
}

export class EditPage {
  constructor(readonly page: Page) {}
  fileInput = () => this.page.getByTestId('reference-file-input');
  canvas = () => this.page.getByTestId('mask-canvas');
  viewport = () => this.page.getByTestId('mask-viewport');
  prompt = () => this.page.getByTestId('edit-prompt');
  submit = () => this.page.getByTestId('edit-submit');
  results = () => this.page.getByTestId('edit-results').getByTestId('result-image');
  share = () => this.page.getByTestId('mask-share');
  references = () => this.page.getByTestId('reference');
  emptyMaskError = () => this.page.getByTestId('mask-empty-error');
  loadError = () => this.page.getByTestId('mask-load-error');
  maskFileInput = () => this.page.getByTestId('mask-file');

  /** The share of the image the mask changes, in percent, as the status bar says it (0: none). */
  async changedPercent(): Promise<number> {
    const text = (await this.share().textContent()) ?? '';
    const match = /([\d.]+)% of the image will change/.exec(text);
    return match ? Number(match[1]) : 0;
  }

  /** Waits until the mask preview shows the mask as it is now. */
  async maskCurrent() {
    await expect(this.page.getByTestId('mask-preview-panel')).toHaveAttribute(
      'data-state',
      'current',
    );
  }

  /**
   * The exported mask file, as the preview's Download saves it (the same export the send uses):
   * its size, how many pixels are clear (change), opaque (keep) or in between (feather), and the
   * alpha at points given as fractions of the image. Decoded in the page, whose decoder is the
   * one the studio uses.
   */
  async maskFile(points: ReadonlyArray<[number, number]> = []) {
    await this.maskCurrent();
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByTestId('mask-download').click(),
    ]);
    const bytes = await readFile((await download.path())!);
    return this.page.evaluate(
      async ({ base64, at }) => {
        const raw = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([raw], { type: 'image/png' }), {
          premultiplyAlpha: 'none',
          colorSpaceConversion: 'none',
        });
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(bitmap, 0, 0);
        const { data, width, height } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
        let clear = 0;
        let opaque = 0;
        for (let i = 3; i < data.length; i += 4) {
          if (data[i] === 0) clear++;
          else if (data[i] === 255) opaque++;
        }
        const alphaAt = at.map(([fx, fy]) => {
          const x = Math.min(width - 1, Math.floor(fx * width));
          const y = Math.min(height - 1, Math.floor(fy * height));
          return data[(y * width + x) * 4 + 3]!;
        });
        return { width, height, clear, opaque, partial: width * height - clear - opaque, alphaAt };
      },
      { base64: bytes.toString('base64'), at: points },
    );
  }

  /**
   * Preview against canvas at points (fractions of the image): whether the mask canvas marks the
   * point (alpha > 0) and whether the preview shows it tinted (it differs from the plain image
   * drawn at the preview's size). They agree when the preview speaks for the canvas.
   */
  async previewMarks(points: ReadonlyArray<[number, number]>) {
    return this.page.evaluate((at) => {
      const preview = document.querySelector<HTMLCanvasElement>('[data-testid="mask-preview"]')!;
      const mask = document.querySelector<HTMLCanvasElement>('[data-testid="mask-canvas"]')!;
      const image = document.querySelector<HTMLImageElement>('.mask-stage img')!;
      const plain = new OffscreenCanvas(preview.width, preview.height);
      const plainCtx = plain.getContext('2d')!;
      plainCtx.drawImage(image, 0, 0, preview.width, preview.height);
      const previewCtx = preview.getContext('2d')!;
      const maskCtx = mask.getContext('2d')!;
      return at.map(([fx, fy]) => {
        const px = Math.floor(fx * preview.width);
        const py = Math.floor(fy * preview.height);
        const shown = previewCtx.getImageData(px, py, 1, 1).data;
        const base = plainCtx.getImageData(px, py, 1, 1).data;
        const alpha = maskCtx.getImageData(
          Math.floor(fx * mask.width),
          Math.floor(fy * mask.height),
          1,
          1,
        ).data[3]!;
        const diff =
          Math.abs(shown[0]! - base[0]!) +
          Math.abs(shown[1]! - base[1]!) +
          Math.abs(shown[2]! - base[2]!);
        return { canvas: alpha > 0, preview: diff > 24 };
      });
    }, points);
  }

  /** Drags the mouse over the canvas along `points` (fractions of its box), button held. */
  async stroke(points: ReadonlyArray<[number, number]>, steps = 12) {
    const box = await this.canvas().boundingBox();
    if (!box) throw new Error('the mask canvas is not visible');
    const at = ([x, y]: readonly [number, number]) =>
      [box.x + x * box.width, box.y + y * box.height] as const;
    const [x0, y0] = at(points[0]!);
    await this.page.mouse.move(x0, y0);
    await this.page.mouse.down();
    for (const point of points.slice(1)) {
      const [x, y] = at(point);
      await this.page.mouse.move(x, y, { steps });
    }
    await this.page.mouse.up();
  }
}

export class GalleryPage {
  constructor(readonly page: Page) {}
  search = () => this.page.getByTestId('gallery-search');
  grid = () => this.page.getByTestId('gallery-grid');
  tiles = () => this.page.getByTestId('gallery-tile');
  tile = (imageId: string) =>
    this.page.locator(`[data-testid="gallery-tile"][data-image-id="${imageId}"]`);
  detail = () => this.page.getByTestId('image-detail');
}

export class KeysPage {
  constructor(readonly page: Page) {}
  row = (name: string) => this.page.locator(`[data-testid="key-row"][data-key-name="${name}"]`);

  /** Creates a key through the form; returns the plaintext shown once. */
  async create(name: string, group?: string): Promise<string> {
    await this.page.getByTestId('create-key').click();
    await this.page.getByTestId('key-name').fill(name);
    if (group) await this.page.getByTestId('key-group').fill(group);
    await this.page.getByTestId('key-submit').click();
    const dialog = this.page.getByTestId('new-key');
    await expect(dialog).toBeVisible();
    const secret = await dialog.getByRole('textbox', { name: 'Your new API key' }).inputValue();
    await dialog.getByTestId('new-key-done').click();
    await expect(this.row(name)).toBeVisible();
    return secret;
  }
}

export class AccountsPage {
  constructor(readonly page: Page) {}
  row = (name: string) =>
    this.page.locator(`[data-testid="account-row"][data-account-name="${name}"]`);

  async addSimulator(name: string) {
    await this.page.getByTestId('add-account-open').click();
    const dialog = this.page.getByTestId('add-account');
    await choose(this.page, 'account-kind', 'simulator');
    await dialog.getByTestId('account-name').fill(name);
    await dialog.getByTestId('account-submit').click();
    await expect(this.row(name)).toBeVisible();
    return (await this.row(name).getAttribute('data-account-id'))!;
  }
}
