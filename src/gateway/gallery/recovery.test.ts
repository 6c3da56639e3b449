import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { GatewayEventMap } from '../core/events';
import { encodePieces } from '../bytes/base64Pieces';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDatabase, tempDir } from '../storage/testing';
import { createJournals, readJournal, runFolderName } from './journal';
import { createImagesRepository } from './repository';
import type { ImageBatch } from './batch';
import { createImageStore, MAX_HELD_BYTES } from './store';
import { testBatch } from './testing';

/** Two small PNGs, as a request's images held in memory (their base64 pieces). */
async function batchOf(requestId: string): Promise<{ batch: ImageBatch; pngs: Buffer[] }> {
  const pngs = await Promise.all(
    ['#336699', '#993366'].map((background) =>
      sharp({ create: { width: 48, height: 32, channels: 3, background } })
        .png()
        .toBuffer(),
    ),
  );
  const batch = testBatch(
    requestId,
    pngs.map((png) => ({ b64: encodePieces(png) })),
    { width: 48, height: 32, prompt: 'two squares' },
  );
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
  /** The journals still holding a promise (a settled slot reads as nothing). */
  const journals = async () => {
    const spool = path.join(dir, '.spool');
    const files = fs
      .readdirSync(spool, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.journal'));
    const live = await Promise.all(files.map((f) => readJournal(path.join(spool, f))));
    return files.filter((_, i) => live[i] !== null);
  };
  return { db, dir, repo, open, logs, journals, events };
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
  it('journals a held batch before hold resolves, and settles it once the images are kept', async () => {
    const { repo, open, journals } = setup({});
    const store = open();
    const { batch, pngs } = await batchOf('req_held');
    await store.hold(batch);
    expect(await journals()).toHaveLength(1);
    store.confirm(batch.requestId, 10);
    await store.drain();
    expect(await journals()).toHaveLength(0);
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
    await createJournals(folder).write(batch);
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
    await createJournals(folder).write(batch);
    const store = open(20);
    expect(await store.recover()).toBe(0);
    expect(logs).toContain('request req_unrecorded: images wait for its usage record to be kept');
    expect(await journals()).toHaveLength(1);
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
    expect(await journals()).toHaveLength(0);
  });

  it('lets held base64 go past its bound and reads it back from the journal', async () => {
    const { repo, open } = setup({});
    const store = open();
    const { batch, pngs } = await batchOf('req_big');
    // Another request's held images fill the bound (never confirmed here): this one's pieces
    // are let go once journaled.
    const big = { ...batch, images: batch.images.map((image) => ({ ...image })) };
    const filler = Buffer.alloc(MAX_HELD_BYTES, 'A');
    const other = {
      ...batch,
      requestId: 'req_filler',
      images: [{ ...batch.images[0]!, b64: [filler] }],
    };
    await store.hold(other);
    await store.hold(big);
    // Spoil the pieces the caller handed over: only the journal still has the images.
    for (const image of big.images) for (const piece of image.b64) piece.fill('A');
    store.confirm(big.requestId, 0);
    await store.drain();
    const kept = (await repo.ofRequests([big.requestId])).get(big.requestId)!;
    kept.forEach((image, i) =>
      expect(fs.readFileSync(path.join(store.dir, image.file)).equals(pngs[i]!)).toBe(true),
    );
  });
});
