import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import type { GatewayEventMap } from '../core/events';
import { encodePieces } from '../bytes/base64Pieces';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDatabase, tempDir } from '../storage/testing';
import { createRunJournal, readJournal, runFolderName } from './journal';
import { createImagesRepository } from './repository';
import type { ImageBatch } from './batch';
import { createImageStore, DECODE_AT_ONCE_MAX } from './store';

/** Two small PNGs, as a request's images held in memory (their base64 pieces). */
async function batchOf(requestId: string): Promise<{ batch: ImageBatch; pngs: Buffer[] }> {
  const pngs = await Promise.all(
    ['#336699', '#993366'].map((background) =>
      sharp({ create: { width: 48, height: 32, channels: 3, background } })
        .png()
        .toBuffer(),
    ),
  );
  const batch: ImageBatch = {
    requestId,
    source: 'api',
    endpoint: '/v1/images/generations',
    prompt: 'two squares',
    model: 'image-model-2',
    requestedSize: '48x32',
    quality: 'low',
    outputCompression: null,
    background: 'auto',
    moderation: null,
    apiKeyId: null,
    parentId: null,
    mask: null,
    images: pngs.map((png) => ({
      b64: encodePieces(png),
      width: 48,
      height: 32,
      format: 'png',
      revisedPrompt: null,
      fallbackStep: null,
      usage: emptyUsage(),
    })),
  };
  return { batch, pngs };
}

function setup(usageCosts: Record<string, number>) {
  const { db } = tempDatabase();
  const dir = path.join(tempDir(), 'images');
  const repo = createImagesRepository(sqliteEngine(db));
  const logs: string[] = [];
  const events = new EventEmitter<GatewayEventMap>();
  const open = (recoverRetryMs?: number) =>
    createImageStore({
      dir,
      repo,
      priceOf: () => null,
      now: () => Date.now(),
      log: (line) => logs.push(line),
      events,
      usageCostOf: (id) => Promise.resolve(Object.hasOwn(usageCosts, id) ? usageCosts[id]! : null),
      recoverRetryMs,
    });
  // The journals that name a request (a run opens its journal at start, empty until then).
  const journals = () =>
    fs
      .readdirSync(path.join(dir, '.spool'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.journal'))
      .filter((f) => fs.statSync(path.join(dir, '.spool', f)).size > 0);
  return { db, dir, repo, open, logs, journals, events };
}

/**
 * What a killed run left for `batch`: each image in its file in the run's folder, and its line in
 * the run's journal. `cut` files are left that many bytes short (their writes never finished).
 */
async function journaled(folder: string, batch: ImageBatch, cut = 0): Promise<string[]> {
  const journal = createRunJournal(folder);
  const files: string[] = [];
  const images = batch.images.map((image, i) => {
    const bytes = Buffer.from(Buffer.concat(image.b64).toString('latin1'), 'base64');
    const file = path.join(folder, `${batch.requestId}_${i}.part`);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - cut));
    files.push(file);
    return { ...image, b64: [], spooled: { path: file, bytes: bytes.length } };
  });
  await journal.add({ ...batch, images });
  // Not closed: a killed run closes nothing.
  return files;
}

/** A run folder of a process that has exited: what a killed gateway leaves. */
function deadRunFolder(dir: string): string {
  const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
  const name = runFolderName('00ff00ff').replace(`_${process.pid}_`, `_${gone}_`);
  const folder = path.join(dir, '.spool', name);
  fs.mkdirSync(folder, { recursive: true });
  return folder;
}

describe('image store: journals', () => {
  it('journals a held batch before hold resolves, and deletes it once the images are kept', async () => {
    const { repo, dir, open, journals } = setup({});
    const store = open();
    const { batch, pngs } = await batchOf('req_held');
    await store.hold(batch);
    expect(journals()).toHaveLength(1);
    // Its line names each image's file, whole on disk before hold resolved.
    const [line] = await readJournal(path.join(dir, '.spool', journals()[0]!));
    expect(line!.requestId).toBe('req_held');
    line!.images.forEach((image, i) =>
      expect(fs.readFileSync(image.spooled!.path).equals(pngs[i]!)).toBe(true),
    );
    store.confirm(batch.requestId, 10);
    await store.drain();
    expect(journals()).toHaveLength(0);
    const kept = (await repo.ofRequests([batch.requestId])).get(batch.requestId)!;
    expect(kept.map((i) => i.costMicros)).toEqual([5, 5]);
    kept.forEach((image, i) =>
      expect(fs.readFileSync(path.join(store.dir, image.file)).equals(pngs[i]!)).toBe(true),
    );
  });

  it("keeps a dead run's journaled images at its usage record's cost, skipping those kept", async () => {
    const { repo, dir, open, logs } = setup({ req_dead: 7 });
    const { batch, pngs } = await batchOf('req_dead');
    const folder = deadRunFolder(dir);
    await journaled(folder, batch);
    // The killed run had kept image 0 and died before its journal went.
    const first = open();
    await first.hold({ ...batch, images: [batch.images[0]!] });
    first.confirm(batch.requestId, 4);
    await first.drain();
    const before = (await repo.ofRequests([batch.requestId])).get(batch.requestId)!;
    expect(before.map((i) => i.index)).toEqual([0]);

    const store = open();
    expect(await store.recover()).toBe(1);
    expect(logs).toContain('kept 1 image(s) a stopped run left to keep');
    const kept = (await repo.ofRequests([batch.requestId])).get(batch.requestId)!;
    expect(kept.map((i) => i.index)).toEqual([0, 1]);
    expect(fs.readFileSync(path.join(store.dir, kept[1]!.file)).equals(pngs[1]!)).toBe(true);
    // Its share of the usage record's 7 (the first image carries the rounding).
    expect(kept[1]!.costMicros).toBe(3);
    expect(fs.existsSync(folder)).toBe(false);
    // Nothing more to keep, nothing doubled.
    expect(await open().recover()).toBe(0);
    expect((await repo.ofRequests([batch.requestId])).get(batch.requestId)).toHaveLength(2);
  });

  it('keeps a journal whose request has no usage record yet, and tries it again until it has', async () => {
    const costs: Record<string, number> = {};
    const { dir, open, journals, logs, events, repo } = setup(costs);
    const { batch } = await batchOf('req_unrecorded');
    const folder = deadRunFolder(dir);
    await journaled(folder, batch);
    const store = open(20);
    expect(await store.recover()).toBe(0);
    expect(logs).toContain('request req_unrecorded: images wait for its usage record to be kept');
    expect(journals()).toHaveLength(1);
    expect(fs.existsSync(folder)).toBe(true);
    // Another instance records the request (its lease over): the next try keeps both images.
    const kept: string[] = [];
    const both = new Promise<void>((resolve) =>
      events.on('image', (id) => kept.push(id) === 2 && resolve()),
    );
    costs.req_unrecorded = 9;
    await both;
    expect((await repo.ofRequests(['req_unrecorded'])).get('req_unrecorded')).toHaveLength(2);
    await store.drain();
    expect(journals()).toHaveLength(0);
  });

  it('keeps nothing of a reply that never ended: its files were cut short', async () => {
    const { repo, dir, open, logs } = setup({ req_cut: 7 });
    const { batch } = await batchOf('req_cut');
    const folder = deadRunFolder(dir);
    const files = await journaled(folder, batch, 10);
    const store = open();
    expect(await store.recover()).toBe(0);
    expect((await repo.ofRequests(['req_cut'])).get('req_cut')).toBeUndefined();
    expect(files.some((file) => fs.existsSync(file))).toBe(false);
    expect(fs.existsSync(folder)).toBe(false);
    expect(logs).toContain('kept 0 image(s) a stopped run left to keep');
  });

  it('keeps the images in memory when their files cannot be written, and still keeps them', async () => {
    const { repo, dir, open, logs, journals } = setup({});
    const store = open();
    // The run's folder becomes a file: no image file or journal can be made in it.
    const spool = path.join(dir, '.spool');
    const run = fs.readdirSync(spool)[0]!;
    fs.rmSync(path.join(spool, run), { recursive: true });
    fs.writeFileSync(path.join(spool, run), '');
    const { batch, pngs } = await batchOf('req_no_disk');
    await store.hold(batch);
    expect(logs.some((line) => line.startsWith('request req_no_disk: images not journaled'))).toBe(
      true,
    );
    store.confirm(batch.requestId, 2);
    await store.drain();
    const kept = (await repo.ofRequests([batch.requestId])).get(batch.requestId)!;
    kept.forEach((image, i) =>
      expect(fs.readFileSync(path.join(store.dir, image.file)).equals(pngs[i]!)).toBe(true),
    );
    fs.rmSync(path.join(spool, run));
    expect(journals()).toEqual([]);
  });

  it('decodes an image past DECODE_AT_ONCE_MAX in steps, and journals it once its file is whole', async () => {
    const { repo, dir, open, journals } = setup({});
    const store = open();
    const { batch } = await batchOf('req_large');
    const large = randomBytes(Math.ceil((DECODE_AT_ONCE_MAX * 3) / 4) + 4096);
    const pieces = encodePieces(large);
    expect(pieces.reduce((sum, piece) => sum + piece.length, 0)).toBeGreaterThan(
      DECODE_AT_ONCE_MAX,
    );
    await store.hold({ ...batch, images: [{ ...batch.images[0]!, b64: pieces }] });
    const [line] = await readJournal(path.join(dir, '.spool', journals()[0]!));
    expect(line!.images[0]!.spooled!.bytes).toBe(large.length);
    expect(fs.readFileSync(line!.images[0]!.spooled!.path).equals(large)).toBe(true);
    store.confirm(batch.requestId, 1);
    await store.drain();
    const [kept] = (await repo.ofRequests([batch.requestId])).get(batch.requestId)!;
    expect(kept!.bytes).toBe(large.length);
    expect(fs.readFileSync(path.join(store.dir, kept!.file)).equals(large)).toBe(true);
  });
});
