import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STUDIO_WORK_FILE_BYTES, type StudioWorkList } from '../../src/shared/admin';
import {
  startTestGateway,
  studioLogin,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
});
afterAll(() => t.close());

const put = (key: string, body: Uint8Array | string) =>
  studio.fetch(`/api/admin/studio/work/${key}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body,
  });

describe('/api/admin/studio/work (Edit’s images and mask, kept by the gateway)', () => {
  it('a GET while PUTs replace the file gets one version whole, never the old length of the new', async () => {
    // Two versions of different lengths replaced back and forth while the same key is read: a
    // read by stat-then-open (res.sendFile) sent one version's length of the other's bytes.
    const short = Buffer.from('{"references":[],"chain":[],"mask":null}');
    const long = Buffer.from(JSON.stringify({ references: [{ key: 'x'.repeat(400) }] }));
    expect((await put('edit-state', short)).status).toBe(200);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) await put('edit-state', i % 2 ? short : long);
    })();
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const res = await studio.fetch('/api/admin/studio/work/edit-state');
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.status).toBe(200);
      expect([short.toString(), long.toString()]).toContain(body.toString());
      seen.add(body.toString());
    }
    writing = false;
    await writer;
    expect(seen.size).toBeGreaterThan(0);
    const gone = await studio.fetch('/api/admin/studio/work/edit-state', { method: 'DELETE' });
    expect(gone.status).toBe(200);
  });

  it('keeps bytes by key, lists them, serves them back exactly, and forgets them', async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
    expect((await put('ref-1', bytes)).status).toBe(200);
    expect((await put('mask-1', new Uint8Array([0, 255, 255, 0]))).status).toBe(200);

    const list = await studio.json<StudioWorkList>('/api/admin/studio/work');
    expect(list.files).toEqual([
      { key: 'mask-1', bytes: 4 },
      { key: 'ref-1', bytes: 70_000 },
    ]);
    const res = await studio.fetch('/api/admin/studio/work/ref-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);

    // A second write under a key replaces the first.
    expect((await put('mask-1', new Uint8Array([9]))).status).toBe(200);
    const again = await studio.fetch('/api/admin/studio/work/mask-1');
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(new Uint8Array([9]));

    // Files are private, in the data folder's own folder.
    const file = path.join(t.dataDir, 'studio-work', 'ref-1.bin');
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    expect((await studio.fetch('/api/admin/studio/work/ref-1', { method: 'DELETE' })).status).toBe(
      200,
    );
    expect((await studio.fetch('/api/admin/studio/work/ref-1')).status).toBe(404);
    const gone = await studio.fetch('/api/admin/studio/work/ref-1', { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect((await studio.json<StudioWorkList>('/api/admin/studio/work')).files).toEqual([
      { key: 'mask-1', bytes: 1 },
    ]);
  });

  it('refuses a key outside its alphabet and an empty body, naming what is wrong', async () => {
    for (const key of ['..%2Fatelier.db', 'a.b', 'x'.repeat(65), '__proto__']) {
      const res = await put(key, 'bytes');
      expect(res.status, key).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe('key');
    }
    const empty = await put('empty', new Uint8Array(0));
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { param: string } }).error.param).toBe('body');
    expect(fs.readdirSync(path.join(t.dataDir, 'studio-work')).sort()).toEqual(['mask-1.bin']);
  });

  it('refuses a file over its limit and keeps nothing of it', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: t.gateway.port,
          method: 'PUT',
          path: '/api/admin/studio/work/huge',
          headers: {
            cookie: studio.cookie,
            'x-atelier-studio': '1',
            'content-type': 'application/octet-stream',
            'content-length': String(MAX_STUDIO_WORK_FILE_BYTES + 1),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      // The whole body goes (the gateway reads an over-limit body off and drops it, so the
      // connection stays usable), in chunks, as a browser would send it.
      const chunk = Buffer.alloc(1024 * 1024);
      let left = MAX_STUDIO_WORK_FILE_BYTES + 1;
      const more = (): void => {
        while (left > 0) {
          const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= part.length;
          if (!req.write(part)) {
            req.once('drain', more);
            return;
          }
        }
        req.end();
      };
      more();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'file_too_large' } });
    expect(fs.existsSync(path.join(t.dataDir, 'studio-work', 'huge.bin'))).toBe(false);
  });

  it('is the studio’s only: no session, no access', async () => {
    const res = await fetch(`${t.url}/api/admin/studio/work`, {
      headers: { 'x-atelier-studio': '1' },
    });
    expect(res.status).toBe(401);
  });
});
