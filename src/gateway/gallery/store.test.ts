import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter, once } from 'node:events';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { sqliteEngine } from '../storage/sqliteEngine';
import { createImagesRepository } from './repository';
import type { StoredImage } from './repository';
import type { GatewayEventMap } from '../core/events';
import { tempDatabase, tempDir } from '../storage/testing';
import type { ImageBatch, KeptImage } from './batch';
import { createImageStore, shareCost } from './store';
import { SPOOL_MIN_PIXELS } from './spool';
import { testBatch } from './testing';

const usage = (imageTokens: number, textTokens = 0): TokenUsage => ({
  ...emptyUsage(),
  input_tokens: textTokens,
  input_tokens_details: { text_tokens: textTokens, image_tokens: 0 },
  output_tokens: imageTokens,
  output_tokens_details: { text_tokens: 0, image_tokens: imageTokens },
  total_tokens: imageTokens + textTokens,
});
const image = (u: TokenUsage) => ({ usage: u }) as KeptImage;
const price = {
  textInput: 5_000_000,
  imageInput: 8_000_000,
  textOutput: 10_000_000,
  imageOutput: 30_000_000,
};

describe('shareCost', () => {
  it('prices each image on its own tokens and adds up to the request exactly', () => {
    const images = [image(usage(271, 7)), image(usage(271, 7)), image(usage(4160, 7))];
    const request = Math.round((3 * 7 * 5_000_000 + (271 + 271 + 4160) * 30_000_000) / 1e6);
    const costs = shareCost({ images }, request, price);
    expect(costs.reduce((a, b) => a + b, 0)).toBe(request);
    expect(costs[2]).toBe(Math.round((7 * 5_000_000 + 4160 * 30_000_000) / 1e6));
  });

  it('splits evenly when the model has no price row', () => {
    expect(
      shareCost({ images: [image(usage(1)), image(usage(1)), image(usage(1))] }, 10, null),
    ).toEqual([4, 3, 3]);
    expect(shareCost({ images: [image(usage(1))] }, 0, null)).toEqual([0]);
  });
});

describe('image store: spooled images', () => {
  async function spooledBatch(
    store: ReturnType<typeof createImageStore>,
    requestId: string,
    source: ImageBatch['source'] = 'studio',
  ) {
    const png = await sharp({
      create: { width: 64, height: 32, channels: 3, background: '#3366cc' },
    })
      .png()
      .toBuffer();
    const spool = store.spool(SPOOL_MIN_PIXELS)!;
    spool.write(Buffer.from(png.toString('base64'), 'latin1'));
    const spooled = (await spool.finish())!;
    const batch = testBatch(requestId, [{ b64: [], spooled }], { width: 64, height: 32, source });
    return { png, batch, spooled };
  }

  function storeWith(whenIdle: () => Promise<void>, quietMs = 0) {
    const { db } = tempDatabase();
    const stored = new EventEmitter();
    const repo = createImagesRepository(sqliteEngine(db));
    // The gateway's `image` event, read back as the stored record for the assertions.
    const events = new EventEmitter<GatewayEventMap>();
    events.on('image', (id) => {
      void repo.get(id).then((image) => stored.emit('stored', image));
    });
    const store = createImageStore({
      dir: path.join(tempDir(), 'images'),
      repo,
      priceOf: () => null,
      now: () => Date.now(),
      log: () => undefined,
      events,
      whenIdle,
      quietMs,
    });
    return { store, stored, db };
  }

  it('moves the file decoded on the way into the gallery; its thumbnail waits for a quiet moment', async () => {
    let becomeIdle: () => void = () => undefined;
    const idle = new Promise<void>((resolve) => (becomeIdle = resolve));
    let asked: () => void = () => undefined;
    const askedIdle = new Promise<void>((resolve) => (asked = resolve));
    const { store, stored, db } = storeWith(() => {
      asked();
      return idle;
    });
    const { png, batch, spooled } = await spooledBatch(
      store,
      `req_${randomBytes(6).toString('hex')}`,
    );
    store.hold(batch);
    const landed = once(stored, 'stored') as Promise<[StoredImage]>;
    store.confirm(batch.requestId, 0);
    // Busy or not, the image itself lands at once: there is nothing left to decode.
    const [image] = await landed;
    expect(fs.readFileSync(path.join(store.dir, image.file)).equals(png)).toBe(true);
    expect(image.bytes).toBe(png.length);
    expect(fs.existsSync(spooled.path)).toBe(false);
    // The thumbnail is what waits.
    await askedIdle;
    const thumbOf = () => db.prepare('SELECT thumb FROM images WHERE id = ?').pluck().get(image.id);
    expect(thumbOf()).toBeNull();
    becomeIdle();
    await expect.poll(thumbOf).not.toBeNull();
    await store.drain();
  });

  it('makes a thumbnail only after the traffic has paused, however idle it is in between', async () => {
    const quietMs = 400;
    const { store, stored, db } = storeWith(() => Promise.resolve(), quietMs);
    const { batch } = await spooledBatch(store, `req_${randomBytes(6).toString('hex')}`);
    store.hold(batch);
    const landed = once(stored, 'stored') as Promise<[StoredImage]>;
    store.confirm(batch.requestId, 0);
    const [image] = await landed;
    const landedAt = performance.now();
    // Another image begins (a client that does not wait): the quiet starts over.
    await Promise.resolve();
    const next = store.spool(SPOOL_MIN_PIXELS)!;
    const nextAt = performance.now();
    const thumbOf = () => db.prepare('SELECT thumb FROM images WHERE id = ?').pluck().get(image.id);
    await expect.poll(thumbOf, { timeout: 20_000, interval: 20 }).not.toBeNull();
    const madeAt = performance.now();
    expect(madeAt - landedAt).toBeGreaterThanOrEqual(quietMs);
    expect(madeAt - nextAt).toBeGreaterThanOrEqual(quietMs);
    await next.discard();
    await store.drain();
  });

  it("leaves an API image's thumbnail to the gallery's first ask", async () => {
    const { store, stored, db } = storeWith(() => Promise.resolve());
    const api = (await spooledBatch(store, `req_${randomBytes(6).toString('hex')}`, 'api')).batch;
    const own = (await spooledBatch(store, `req_${randomBytes(6).toString('hex')}`)).batch;
    const landed: StoredImage[] = [];
    stored.on('stored', (image: StoredImage) => landed.push(image));
    for (const batch of [api, own]) {
      store.hold(batch);
      store.confirm(batch.requestId, 0);
    }
    const thumbOf = (id: string) =>
      db.prepare('SELECT thumb FROM images WHERE id = ?').pluck().get(id);
    await expect.poll(() => landed.length).toBe(2);
    const [apiImage, ownImage] = landed as [StoredImage, StoredImage];
    expect(apiImage.source).toBe('api');
    // The studio's image, written after the API one, has its thumbnail; the API image has none.
    await expect.poll(() => thumbOf(ownImage.id), { timeout: 20_000 }).not.toBeNull();
    expect(thumbOf(apiImage.id)).toBeNull();
    const made = await store.ensureThumb(apiImage);
    expect((await sharp(made).metadata()).format).toBe('webp');
    expect(thumbOf(apiImage.id)).not.toBeNull();
    await store.drain();
  });
});

describe('image store: held images wait for a moment without requests', () => {
  async function heldBatch(requestId: string): Promise<{ png: Buffer; batch: ImageBatch }> {
    const png = await sharp({
      create: { width: 48, height: 40, channels: 3, background: '#cc6633' },
    })
      .png()
      .toBuffer();
    const text = Buffer.from(png.toString('base64'), 'latin1');
    // Two pieces, as a socket delivers them.
    const batch = testBatch(requestId, [{ b64: [text.subarray(0, 100), text.subarray(100)] }], {
      width: 48,
      height: 40,
      prompt: 'a held image',
    });
    return { png, batch };
  }

  function busyStore(maxWriteWaitMs: number) {
    const { db } = tempDatabase();
    const repo = createImagesRepository(sqliteEngine(db));
    const events = new EventEmitter<GatewayEventMap>();
    const landed: Array<{ id: string; at: number }> = [];
    events.on('image', (id) => landed.push({ id, at: performance.now() }));
    let becomeIdle: () => void = () => undefined;
    let asked = 0;
    const idle = new Promise<void>((resolve) => (becomeIdle = resolve));
    const store = createImageStore({
      dir: path.join(tempDir(), 'images'),
      repo,
      priceOf: () => null,
      now: () => Date.now(),
      log: () => undefined,
      events,
      whenIdle: () => {
        asked += 1;
        return idle;
      },
      maxWriteWaitMs,
    });
    return { store, repo, landed, becomeIdle, asked: () => asked };
  }

  it('writes a held image once no request is in flight, not before', async () => {
    const { store, repo, landed, becomeIdle, asked } = busyStore(60_000);
    const first = await heldBatch(`req_${randomBytes(6).toString('hex')}`);
    const second = await heldBatch(`req_${randomBytes(6).toString('hex')}`);
    for (const { batch } of [first, second]) {
      await store.hold(batch);
      store.confirm(batch.requestId, 0);
    }
    await expect.poll(asked).toBe(1);
    // Requests are in flight: nothing is written, and both images wait on one shared wait.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(landed).toEqual([]);
    expect(asked()).toBe(1);
    becomeIdle();
    await expect.poll(() => landed.length).toBe(2);
    const kept = await repo.get(landed[0]!.id);
    expect(fs.readFileSync(path.join(store.dir, kept!.file)).equals(first.png)).toBe(true);
    await store.drain();
  });

  it('never keeps a spooled image waiting behind a held one', async () => {
    const { store, landed, becomeIdle } = busyStore(60_000);
    const { batch } = await heldBatch(`req_${randomBytes(6).toString('hex')}`);
    await store.hold(batch);
    store.confirm(batch.requestId, 0);
    // A 4K-sized image, spooled as it streamed: only its rename and row are left.
    const spool = store.spool(SPOOL_MIN_PIXELS)!;
    spool.write(
      Buffer.from(batch.images[0]!.b64.map((piece) => piece.toString('latin1')).join(''), 'latin1'),
    );
    const spooled = (await spool.finish())!;
    const big: ImageBatch = {
      ...batch,
      requestId: `req_${randomBytes(6).toString('hex')}`,
      images: [{ ...batch.images[0]!, b64: [], spooled }],
    };
    await store.hold(big);
    store.confirm(big.requestId, 0);
    await expect.poll(() => landed.length).toBe(1);
    // The held one still waits for its quiet moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(landed).toHaveLength(1);
    becomeIdle();
    await expect.poll(() => landed.length).toBe(2);
    await store.drain();
  });

  it('writes it after the longest wait however busy the gateway stays, and at once on drain', async () => {
    const waitMs = 300;
    const { store, landed } = busyStore(waitMs);
    const { batch } = await heldBatch(`req_${randomBytes(6).toString('hex')}`);
    await store.hold(batch);
    const confirmedAt = performance.now();
    store.confirm(batch.requestId, 0);
    await expect.poll(() => landed.length, { timeout: 10_000, interval: 20 }).toBe(1);
    expect(landed[0]!.at - confirmedAt).toBeGreaterThanOrEqual(waitMs - 5);

    const { store: draining, landed: drained } = busyStore(60_000);
    const next = await heldBatch(`req_${randomBytes(6).toString('hex')}`);
    await draining.hold(next.batch);
    draining.confirm(next.batch.requestId, 0);
    // Shutdown keeps what is held without waiting for a quiet moment that may never come.
    await draining.drain();
    expect(drained).toHaveLength(1);
    await store.drain();
  });
});

describe('image store: gateways sharing one images folder', () => {
  it("never removes another run's spool in progress; what a stopped run left goes once stale", async () => {
    const dir = path.join(tempDir(), 'images');
    const { db } = tempDatabase();
    const open = () =>
      createImageStore({
        dir,
        repo: createImagesRepository(sqliteEngine(db)),
        priceOf: () => null,
        now: () => Date.now(),
        log: () => undefined,
        events: new EventEmitter<GatewayEventMap>(),
      });
    const first = open();
    const inProgress = first.spool(SPOOL_MIN_PIXELS)!;
    inProgress.write(Buffer.from('aGVsbG8g', 'latin1'));
    // What a run stopped two hours ago left: a spool file nothing will finish.
    const crashed = path.join(dir, '.spool', 'run_crashed');
    fs.mkdirSync(crashed, { recursive: true });
    const leftover = path.join(crashed, 'abandoned.part');
    fs.writeFileSync(leftover, 'half an image');
    const twoHoursAgo = (Date.now() - 2 * 60 * 60_000) / 1000;
    fs.utimesSync(leftover, twoHoursAgo, twoHoursAgo);

    // A second gateway starts on the same folder while the first is mid-image.
    const second = open();
    expect(fs.existsSync(crashed)).toBe(false);
    const spooled = (await inProgress.finish())!;
    expect(fs.readFileSync(spooled.path, 'latin1')).toBe('hello ');
    const own = second.spool(SPOOL_MIN_PIXELS)!;
    own.write(Buffer.from('d29ybGQh', 'latin1'));
    const theirs = (await own.finish())!;
    expect(path.dirname(theirs.path)).not.toBe(path.dirname(spooled.path));
    await Promise.all([first.drain(), second.drain()]);
  });
});
