import { expect, test } from '@playwright/test';
import { patternPng } from './support/images';
import { EditPage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();
const W = 512;
const H = 384;

/** The record of Edit's work the gateway keeps, or null before the first is written. */
interface KeptRecord {
  references: Array<{ key: string; name: string }>;
  chain: Array<{ key: string }>;
  mask: { key: string } | null;
}

async function keptRecord(): Promise<KeptRecord | null> {
  const { files } = await studio.admin<{ files: Array<{ key: string }> }>(
    'GET',
    '/api/admin/studio/work',
  );
  if (!files.some((file) => file.key === 'edit-state')) return null;
  return JSON.parse(
    (await studio.adminBytes('/api/admin/studio/work/edit-state')).toString('utf8'),
  ) as KeptRecord;
}

test('work an older studio kept in the page’s IndexedDB moves to the gateway once, then goes', async () => {
  const { page } = studio;
  const png = await patternPng(W, H, 3);
  // What the older studio wrote: one reference (also the chain's first step) and a mask over the
  // left half, in its database and shape.
  await page.evaluate(
    async ({ bytes, W, H }) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open('atelier-edit-work', 1);
        req.onupgradeneeded = () => {
          req.result.createObjectStore('images');
          req.result.createObjectStore('state');
        };
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const coverage = new Uint8Array(W * H);
      for (let y = 0; y < H; y++) coverage.fill(255, y * W, y * W + W / 2);
      const image = { name: 'kept.png', width: W, height: H, format: 'png', galleryId: null };
      const tx = db.transaction(['images', 'state'], 'readwrite');
      tx.objectStore('images').put(new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'k1');
      tx.objectStore('state').put(
        {
          references: [{ ...image, key: 'k1' }],
          chain: [{ ...image, prompt: null, key: 'k1' }],
          mask: { width: W, height: H, coverage },
        },
        'current',
      );
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    },
    { bytes: [...png], W, H },
  );
  expect(await keptRecord()).toBeNull();

  await page.reload();
  await expect(page.locator('.app')).toHaveAttribute('data-ready', 'true');
  await open(page, 'edit');
  const edit = new EditPage(page);
  await expect(edit.references()).toHaveCount(1);
  await expect(page.getByTestId('edit-chain').locator('li')).toHaveCount(1);
  await expect.poll(() => edit.changedPercent()).toBe(50);

  // Moved: the gateway holds the record and the very bytes, and the old database is gone.
  await expect.poll(async () => (await keptRecord())?.references.length ?? 0).toBe(1);
  const record = (await keptRecord())!;
  expect(record.references[0]!.name).toBe('kept.png');
  const kept = await studio.adminBytes(`/api/admin/studio/work/${record.references[0]!.key}`);
  expect(Buffer.compare(kept, png)).toBe(0);
  await expect
    .poll(() => page.evaluate(async () => (await indexedDB.databases()).map((db) => db.name)))
    .toEqual([]);

  // A reload now reads the gateway's copy: the same image and mask.
  await page.reload();
  await expect(page.locator('.app')).toHaveAttribute('data-ready', 'true');
  await open(page, 'edit');
  await expect(edit.references()).toHaveCount(1);
  await expect.poll(() => edit.changedPercent()).toBe(50);
  const file = await edit.maskFile([
    [0.25, 0.5],
    [0.75, 0.5],
  ]);
  expect(file).toMatchObject({ width: W, height: H, alphaAt: [0, 255] });
});

test('the gateway keeps only the files the record names: a removed image and its mask go', async () => {
  const { page } = studio;
  const edit = new EditPage(page);
  await expect(edit.references()).toHaveCount(1);
  const before = (await keptRecord())!;
  const named = (record: typeof before) =>
    [
      'edit-state',
      ...record.references.map((r) => r.key),
      ...record.chain.map((s) => s.key),
      ...(record.mask ? [record.mask.key] : []),
    ].sort();
  expect(before.mask).not.toBeNull();
  await page.getByTestId('remove-reference').first().click();
  await expect(edit.references()).toHaveCount(0);
  await expect.poll(async () => (await keptRecord())?.references.length).toBe(0);
  const after = (await keptRecord())!;
  expect(after.mask).toBeNull();
  const { files } = await studio.admin<{ files: Array<{ key: string }> }>(
    'GET',
    '/api/admin/studio/work',
  );
  expect(files.map((f) => f.key).sort()).toEqual([...new Set(named(after))].sort());
  expect(files.map((f) => f.key)).not.toContain(before.mask!.key);
});

test('two studio pages share the record without removing each other’s files', async () => {
  const { page } = studio;
  const edit = new EditPage(page);
  const add = (on: EditPage, name: string, seed: number) =>
    patternPng(160, 120, seed).then((buffer) =>
      on.fileInput().setInputFiles({ name, mimeType: 'image/png', buffer }),
    );
  /** Every file the record names is on the gateway: the record a reload reads is whole. */
  const recordIsWhole = async (names: string[]) => {
    const record = await keptRecord();
    if (!record || record.references.map((r) => r.name).join() !== names.join()) return false;
    const { files } = await studio.admin<{ files: Array<{ key: string }> }>(
      'GET',
      '/api/admin/studio/work',
    );
    const there = new Set(files.map((f) => f.key));
    const named = [...record.references, ...record.chain].map((x) => x.key);
    if (record.mask) named.push(record.mask.key);
    return named.every((key) => there.has(key));
  };

  await open(page, 'edit');
  await expect(edit.references()).toHaveCount(0);
  await add(edit, 'a.png', 11);
  await expect.poll(() => recordIsWhole(['a.png'])).toBe(true);

  // A second page starts from the record (a.png), then replaces a.png with its own b.png.
  const other = await studio.context.newPage();
  await other.goto(studio.server.url);
  await expect(other.locator('.app')).toHaveAttribute('data-ready', 'true');
  await open(other, 'edit');
  const otherEdit = new EditPage(other);
  await expect(otherEdit.references()).toHaveCount(1);
  await add(otherEdit, 'b.png', 12);
  await expect(otherEdit.references()).toHaveCount(2);
  await other.getByTestId('remove-reference').first().click();
  await expect.poll(() => recordIsWhole(['b.png'])).toBe(true);

  // The first page still holds a.png, whose file the second page removed: its next write must
  // send it again rather than name a file that is gone.
  await add(edit, 'c.png', 13);
  await expect.poll(() => recordIsWhole(['a.png', 'c.png'])).toBe(true);

  // And the second page's next write finds its b.png still there (or sends it again).
  await add(otherEdit, 'd.png', 14);
  await expect.poll(() => recordIsWhole(['b.png', 'd.png'])).toBe(true);
  await other.close();

  // A reload reads the last record whole.
  await page.reload();
  await expect(page.locator('.app')).toHaveAttribute('data-ready', 'true');
  await open(page, 'edit');
  await expect(edit.references()).toHaveCount(2);
});
