import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { runCli, startServe, until, type ServeProcess } from '../support/cli';
import { tempDir } from '../support/gateway';

const dataDir = tempDir('atelier-gallery-crash-');
const servers: ServeProcess[] = [];
afterAll(() => {
  for (const s of servers) s.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The journals under the images folder's spool: the gallery's promises not yet kept. */
function journals(): string[] {
  const root = path.join(dataDir, 'images', '.spool');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .flatMap((run) => fs.readdirSync(path.join(root, run)).map((f) => path.join(root, run, f)))
    .filter((file) => file.endsWith('.journal'));
}

describe('the gallery survives kill -9', () => {
  it('keeps every image a killed gateway had promised, once, each with its usage row', async () => {
    const created = runCli(['keys', 'create', '--name', 'gallery-crash', '--data-dir', dataDir]);
    expect(created.status).toBe(0);
    const key = created.stdout.trimEnd().split('\n').pop()!;
    // The test hook holds the gallery's write queue: replies end, images wait in it.
    const server = await startServe(['--port', '0', '--data-dir', dataDir], {
      ATELIER_TEST_HOLD_GALLERY_WRITES: '1',
    });
    servers.push(server);
    const generate = async (body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/v1/images/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-model-2', prompt: 'a harbour at noon', ...body }),
      });
      expect(res.status).toBe(200);
      const json = (await res.json()) as { data: Array<{ b64_json: string }> };
      return {
        requestId: res.headers.get('x-request-id')!,
        images: json.data.map((d) => Buffer.from(d.b64_json, 'base64')),
      };
    };
    // Small images streamed through (n = 1) and a whole JSON reply of two (n = 2).
    const replies = await Promise.all([
      ...Array.from({ length: 5 }, () => generate({ quality: 'low', size: '1024x1024' })),
      generate({ quality: 'low', size: '1536x1024' }),
      generate({ quality: 'low', size: '1024x1024', n: 2 }),
    ]);
    const imageCount = replies.reduce((sum, r) => sum + r.images.length, 0);
    expect(imageCount).toBe(8);

    const db = openDatabase(databasePath(dataDir));
    try {
      const count = (table: string) =>
        db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
      // Every reply has ended, so every journal is on disk; the records follow the replies.
      expect(journals()).toHaveLength(replies.length);
      await until(() => count('usage_records') === replies.length, 'every usage record');
      expect(count('images')).toBe(0);
      server.child.kill('SIGKILL');
      expect(await server.exited).toBeNull();

      const restarted = await startServe(['--port', '0', '--data-dir', dataDir]);
      servers.push(restarted);
      await until(
        () => restarted.output().includes(`kept ${imageCount} image(s) a stopped run left to keep`),
        'the recovery',
      );
      expect(journals()).toHaveLength(0);
      const rows = db
        .prepare(
          `SELECT request_id AS requestId, image_index AS "index", file, bytes,
                  cost_micros AS cost, source FROM images ORDER BY request_id, image_index`,
        )
        .all() as Array<{
        requestId: string;
        index: number;
        file: string;
        bytes: number;
        cost: number;
        source: string;
      }>;
      expect(rows).toHaveLength(imageCount);
      for (const reply of replies) {
        const kept = rows.filter((r) => r.requestId === reply.requestId);
        expect(kept.map((r) => r.index)).toEqual(reply.images.map((_, i) => i));
        const record = db
          .prepare('SELECT status, cost_micros AS cost FROM usage_records WHERE request_id = ?')
          .get(reply.requestId) as { status: number; cost: number };
        expect(record.status).toBe(200);
        // The images' shares add up to their usage row's cost.
        expect(kept.reduce((sum, r) => sum + r.cost, 0)).toBe(record.cost);
        kept.forEach((row, i) => {
          // The very bytes the caller received.
          const file = fs.readFileSync(path.join(dataDir, 'images', ...row.file.split('/')));
          expect(file.equals(reply.images[i]!)).toBe(true);
          expect(row.bytes).toBe(file.length);
          expect(row.source).toBe('api');
        });
      }

      // The unique (request, index) pair keeps a second try from doubling any (store.test.ts).
      restarted.child.kill('SIGTERM');
      expect(await restarted.exited).toBe(0);
      expect(count('images')).toBe(imageCount);
    } finally {
      db.close();
    }
  });
});
