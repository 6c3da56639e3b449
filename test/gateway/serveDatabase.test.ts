import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { openPostgresDatabase } from '../../src/gateway/storage/postgresEngine';
import { createPostgresDatabase, tempDir } from '../../src/gateway/storage/testing';
import { runCliAsync, startServe } from '../support/cli';
import { decodeB64, testPicture } from '../support/images';

/**
 * `atelier serve --database <PostgreSQL>` as a real process against the test run's PostgreSQL
 * (issue 21 item 4): a generation and an edit with everything in the database.
 */
describe('atelier serve --database', () => {
  it('serves a generation and an edit with every row in PostgreSQL and no SQLite file', async () => {
    const url = await createPostgresDatabase();
    const dataDir = path.join(tempDir(), 'data');
    // The schema first (as an instance would at start), then a key in the shared database.
    const engine = await openPostgresDatabase({ url, max: 2 });
    onTestFinished(() => engine.close());
    const { key } = await createKeysRepository(engine).create({ name: 'team' });

    const server = await startServe(['--port', '0', '--database', url, '--data-dir', dataDir]);
    onTestFinished(() => void server.child.kill('SIGKILL'));
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const gen = await client.images.generate({
      model: 'image-model-2',
      prompt: 'a lighthouse kept by a team',
      size: '1024x1024',
    });
    const made = await decodeB64(gen.data![0]!.b64_json!);
    expect([made.width, made.height]).toEqual([1024, 1024]);
    const edit = await client.images.edit({
      model: 'image-model-2',
      prompt: 'the same lighthouse at night',
      image: await toFile(await testPicture(1024, 1024), 'lighthouse.png'),
    });
    expect(edit.data![0]!.b64_json).toBeTruthy();

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const rows = await engine.all<{ endpoint: string; status: number }>(
      'SELECT endpoint, status FROM usage_records ORDER BY id',
    );
    expect(rows).toEqual([
      { endpoint: '/images/generations', status: 200 },
      { endpoint: '/images/edits', status: 200 },
    ]);
    expect(await engine.get('SELECT COUNT(*) AS n FROM usage_pending')).toEqual({ n: 0 });
    expect(fs.existsSync(path.join(dataDir, 'atelier.db'))).toBe(false);
  });

  it('refuses ATELIER_DATABASE_URL naming another database, as a usage error', async () => {
    const res = await runCliAsync(['serve', '--port', '0'], {
      ATELIER_DATABASE_URL: 'mysql://localhost/atelier',
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('ATELIER_DATABASE_URL must be a PostgreSQL URL');
  });
});
