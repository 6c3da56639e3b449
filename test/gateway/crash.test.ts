import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_PRICES, estimateImageRequest } from '../../src/shared/costEstimate';
import { INTERRUPTED } from '../../src/shared/usageRecord';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { runCli, startServe, until, type ServeProcess } from '../support/cli';
import { tempDir } from '../support/gateway';

const dataDir = tempDir('atelier-crash-');
const servers: ServeProcess[] = [];
afterAll(() => {
  for (const s of servers) s.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('usage survives kill -9', () => {
  it('records every dispatched request of a killed gateway as interrupted on the next start, once', async () => {
    const created = runCli(['keys', 'create', '--name', 'crash', '--data-dir', dataDir]);
    expect(created.status).toBe(0);
    const key = created.stdout.trimEnd().split('\n').pop()!;
    // A slow simulator (10x its usual latency) keeps the requests upstream when the kill comes.
    const server = await startServe([
      ...['--port', '0', '--data-dir', dataDir, '--simulator-speed', '10'],
    ]);
    servers.push(server);
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${server.url}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const generation = { model: 'image-model-2', prompt: 'a lighthouse at dusk' };

    // Two finish before the crash: their records must stay as they are, not doubled.
    const finished = await Promise.all(
      [0, 1].map(async () => {
        const res = await post('/images/generations', { ...generation, quality: 'low' });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        return res.headers.get('x-request-id')!;
      }),
    );

    // Ten more under way: plain, n = 2, streamed, and a Responses call with the image tool.
    const bodies: Array<[string, Record<string, unknown>]> = [
      ...Array.from({ length: 5 }, (): [string, Record<string, unknown>] => [
        '/images/generations',
        { ...generation, quality: 'high' },
      ]),
      ['/images/generations', { ...generation, quality: 'high', n: 2 }],
      ['/images/generations', { ...generation, quality: 'high', n: 2, size: '1536x1024' }],
      ['/images/generations', { ...generation, quality: 'high', stream: true }],
      ['/images/generations', { ...generation, quality: 'high', stream: true, partial_images: 1 }],
      [
        '/responses',
        {
          model: 'agent-model-1',
          input: 'draw a lighthouse',
          tools: [{ type: 'image_generation', quality: 'high', size: '1024x1024' }],
        },
      ],
    ];
    const streamedIds: string[] = [];
    const inFlight = bodies.map(([path, body]) =>
      post(path, body).then(
        (res) => {
          // Streams send their headers (and the request id) before the image.
          if (body.stream === true) streamedIds.push(res.headers.get('x-request-id')!);
          return res.arrayBuffer().then(
            () => 'finished',
            () => 'broken',
          );
        },
        () => 'refused',
      ),
    );

    const db = openDatabase(databasePath(dataDir));
    try {
      const pending = () =>
        db.prepare('SELECT COUNT(*) FROM usage_pending').pluck().get() as number;
      await until(() => pending() === bodies.length, 'every request to be dispatched');
      server.child.kill('SIGKILL');
      expect(await server.exited).toBeNull();
      // Nobody got an answer: the process died with every request upstream.
      expect(await Promise.all(inFlight)).not.toContain('finished');
      expect(pending()).toBe(bodies.length);
      const before = db.prepare('SELECT COUNT(*) FROM usage_records').pluck().get();
      expect(before).toBe(finished.length);

      const restarted = await startServe(['--port', '0', '--data-dir', dataDir]);
      servers.push(restarted);
      expect(restarted.output()).toContain(
        `recorded ${bodies.length} request(s) interrupted when the gateway last stopped`,
      );
      expect(pending()).toBe(0);
      const rows = db
        .prepare(
          `SELECT request_id, endpoint, status, error_code, error_message, api_key_id, model, size,
                  quality, n, stream, upstream_account_id, images, cost_micros, estimated
           FROM usage_records ORDER BY id`,
        )
        .all() as Array<Record<string, string | number | null>>;
      expect(rows).toHaveLength(finished.length + bodies.length);
      expect(new Set(rows.map((r) => r.request_id)).size).toBe(rows.length);
      const done = rows.filter((r) => finished.includes(String(r.request_id)));
      expect(done.map((r) => r.status)).toEqual([200, 200]);
      const interrupted = rows.filter((r) => r.error_code === INTERRUPTED);
      expect(interrupted).toHaveLength(bodies.length);
      const keyId = (
        db.prepare(`SELECT id FROM api_keys WHERE name = 'crash'`).get() as { id: string }
      ).id;
      for (const row of interrupted) {
        expect(row).toMatchObject({
          status: 500,
          api_key_id: keyId,
          upstream_account_id: 'simulator',
          images: 0,
          // The reservation's estimate, kept: the key's budget stays spent (issue 23, item 3).
          estimated: 1,
        });
        expect(row.cost_micros).toBeGreaterThan(0);
        expect(row.error_message).toMatch(/after \d+ upstream calls?\b/);
      }
      const images = interrupted.filter((r) => r.endpoint === '/images/generations');
      const plainHigh = estimateImageRequest(
        {
          prompt: generation.prompt,
          size: null,
          quality: 'high',
          n: 1,
          partialImages: 0,
        },
        DEFAULT_IMAGE_PRICES,
      ).costMicros;
      const plain = images.filter((r) => r.n === 1 && r.stream === 0);
      expect(plain.map((r) => r.cost_micros)).toEqual(plain.map(() => plainHigh));
      expect(images.map((r) => r.model)).toEqual(images.map(() => 'image-model-2'));
      expect(images.map((r) => r.quality)).toEqual(images.map(() => 'high'));
      // As asked: a size left out is recorded as `auto`.
      expect(images.filter((r) => r.n === 2).map((r) => r.size)).toEqual(['auto', '1536x1024']);
      expect(images.filter((r) => r.stream === 1)).toHaveLength(2);
      for (const id of streamedIds) expect(interrupted.map((r) => r.request_id)).toContain(id);
      const responses = interrupted.find((r) => r.endpoint === '/responses');
      expect(responses).toMatchObject({ model: 'agent-model-1', size: '1024x1024' });

      // The studio's usage page reads them from the admin API like any other record.
      const login = /studio login: (http:\/\/\S+)/.exec(restarted.output())![1]!;
      const signIn = await fetch(login, { redirect: 'manual' });
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const listed = (await (
        await fetch(`${restarted.url}/api/admin/usage?status=500`, {
          headers: { cookie, 'x-atelier-studio': '1' },
        })
      ).json()) as { records: Array<{ requestId: string; errorCode: string }>; total: number };
      expect(listed.total).toBe(bodies.length);
      expect(listed.records.map((r) => r.errorCode)).toEqual(interrupted.map(() => INTERRUPTED));

      restarted.child.kill('SIGTERM');
      expect(await restarted.exited).toBe(0);
    } finally {
      db.close();
    }
  });
});
