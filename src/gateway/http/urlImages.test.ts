import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlImages, URL_IMAGES_PATH, type UrlImages } from '../gallery/urlImages';
import { errorHandler } from './errorHandler';
import { serveUrlImage } from './urlImages';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-url-images-'));
let clock = Date.UTC(2026, 0, 1);
let images: UrlImages;
let server: http.Server;
let origin = '';

beforeAll(async () => {
  images = createUrlImages({ root: path.join(dir, 'url-images'), now: () => clock });
  const app = express();
  app.get(`${URL_IMAGES_PATH}/:name`, serveUrlImage(images));
  app.use(errorHandler(() => undefined));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await images.close();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The one run folder a gateway's URL images live in (its name is the run's, unknown outside). */
function runFolder(of: UrlImages, root = path.join(dir, 'url-images')): string {
  const name = path.basename(of.dir);
  expect(fs.readdirSync(root)).toContain(name);
  return path.join(root, name);
}

const bytes = Buffer.from('not really a png, but bytes all the same');
const b64 = [Buffer.from(bytes.toString('base64'))];

describe('signed image URLs', () => {
  it('serve the bytes until the hour is over, then say so, and the sweep removes the file', async () => {
    const published = await images.publish(b64, 'png');
    expect(published.expiresAt).toBe(clock + 3_600_000);
    const first = await fetch(origin + published.path);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(Buffer.from(await first.arrayBuffer())).toEqual(bytes);

    clock += 59 * 60_000;
    expect((await fetch(origin + published.path)).status).toBe(200);
    clock += 2 * 60_000;
    const late = await fetch(origin + published.path);
    expect(late.status).toBe(410);
    expect(((await late.json()) as { error: { message: string } }).error.message).toMatch(
      /expired/,
    );
    const name = published.path.split('/').pop()!.split('?')[0]!;
    const file = path.join(runFolder(images), name);
    expect(fs.existsSync(file)).toBe(true);
    await images.sweep();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('a signature with a multibyte character is unknown (404), not an error', async () => {
    const published = await images.publish(b64, 'png');
    const signature = new URL(origin + published.path).searchParams.get('signature')!;
    // Same length in characters as the real one, more bytes: the compare must not throw.
    for (const odd of ['é', '€', '😀'.slice(0, 1), '\u{1F600}']) {
      const forged = [...signature].slice(0, signature.length - odd.length).join('') + odd;
      expect(forged.length).toBe(signature.length);
      const url = new URL(origin + published.path);
      url.searchParams.set('signature', forged);
      const answer = await fetch(url);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('another process cannot sign: a URL from another key is unknown', async () => {
    const other = createUrlImages({ root: path.join(dir, 'other'), now: () => clock });
    const foreign = await other.publish(b64, 'png');
    expect((await fetch(origin + foreign.path)).status).toBe(404);
    await other.close();
  });

  it('a run removes only its own folder when it stops; another run keeps serving its images', async () => {
    const root = path.join(dir, 'shared');
    const first = createUrlImages({ root, now: () => clock });
    const second = createUrlImages({ root, now: () => clock });
    await first.publish(b64, 'png');
    const kept = await second.publish(b64, 'png');
    const secondFolder = runFolder(second, root);
    expect(runFolder(first, root)).not.toBe(secondFolder);

    await first.close();
    expect(fs.readdirSync(root)).toEqual([path.basename(secondFolder)]);
    const name = kept.path.split('/').pop()!.split('?')[0]!;
    expect(fs.existsSync(path.join(secondFolder, name))).toBe(true);
    // A third run starting on the same folder leaves the live run's fresh files alone too.
    const third = createUrlImages({ root, now: () => clock });
    await third.sweep();
    expect(fs.existsSync(path.join(secondFolder, name))).toBe(true);
    await Promise.all([second.close(), third.close()]);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it("an earlier run's folder left by a crash goes once its URLs have expired, not before", async () => {
    const root = path.join(dir, 'crashed');
    const realNow = Date.now();
    const young = path.join(root, 'run_young');
    const old = path.join(root, 'run_old');
    fs.mkdirSync(young, { recursive: true });
    fs.mkdirSync(old, { recursive: true });
    fs.writeFileSync(path.join(young, 'url_a.png'), bytes);
    fs.writeFileSync(path.join(old, 'url_b.png'), bytes);
    fs.writeFileSync(path.join(root, 'url_layout_before_runs.png'), bytes);
    // Written 61 minutes ago: every URL of it expired a minute ago.
    const past = (realNow - 61 * 60_000) / 1000;
    fs.utimesSync(path.join(old, 'url_b.png'), past, past);
    fs.utimesSync(path.join(root, 'url_layout_before_runs.png'), past, past);
    fs.utimesSync(
      path.join(young, 'url_a.png'),
      realNow / 1000 - 59 * 60,
      realNow / 1000 - 59 * 60,
    );

    const run = createUrlImages({ root, now: () => realNow });
    await run.sweep();
    expect(fs.readdirSync(root)).toEqual(['run_young']);
    expect(fs.readdirSync(young)).toEqual(['url_a.png']);
    await run.close();
  });
});

describe('signed image URLs of a team gateway (one key and one folder, shared)', () => {
  /** An instance: its URL images and a server answering them. */
  async function instance(root: string, key: Buffer) {
    const own = createUrlImages({ root, now: () => clock, sharedKey: key });
    const app = express();
    app.get(`${URL_IMAGES_PATH}/:name`, serveUrlImage(own));
    app.use(errorHandler(() => undefined));
    const listening = http.createServer(app);
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    return {
      images: own,
      url,
      stop: () => new Promise((resolve) => listening.close(resolve)),
    };
  }

  it('a URL one instance made is answered by another, also after the first stopped', async () => {
    const root = path.join(dir, 'team');
    const key = Buffer.alloc(32, 7);
    const [a, b] = await Promise.all([instance(root, key), instance(root, key)]);
    const published = await a.images.publish(b64, 'webp');
    const fromB = await fetch(b.url + published.path);
    expect(fromB.status).toBe(200);
    expect(Buffer.from(await fromB.arrayBuffer())).toEqual(bytes);

    // A stops (a drain, a deploy): its URLs stay good on B for their hour.
    await a.images.close();
    await a.stop();
    expect((await fetch(b.url + published.path)).status).toBe(200);

    // A file that is not complete yet is not there under its name; a removed one is gone.
    const name = published.path.split('/').pop()!.split('?')[0]!;
    const file = path.join(a.images.dir, name);
    fs.renameSync(file, `${file}.0000.tmp`);
    expect((await fetch(b.url + published.path)).status).toBe(410);
    fs.rmSync(`${file}.0000.tmp`);
    expect((await fetch(b.url + published.path)).status).toBe(410);

    // A URL signed under another key is unknown, as on the desktop.
    const stranger = createUrlImages({ root, now: () => clock, sharedKey: Buffer.alloc(32, 8) });
    const foreign = await stranger.publish(b64, 'png');
    expect((await fetch(b.url + foreign.path)).status).toBe(404);
    await Promise.all([stranger.close(), b.images.close(), b.stop()]);
  });
});
