import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/gateway/core/dataDir';
import {
  startTestGateway,
  studioLogin,
  usageRow,
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

const fileSize = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

describe('unauthenticated traffic', () => {
  it('costs no usage row: 400 requests without a valid key leave the database as it was', async () => {
    const db = databasePath(t.dataDir);
    const rows = () => t.db.prepare('SELECT COUNT(*) FROM usage_records').pluck().get() as number;
    const before = { rows: rows(), db: fileSize(db), wal: fileSize(`${db}-wal`) };
    const bodies = [
      JSON.stringify({ model: 'image-model-2', prompt: 'x' }),
      JSON.stringify({ model: 'agent-model-1', input: 'hi' }),
    ];
    const headers = [
      {},
      { authorization: 'Bearer atl_notARealKey123456789012345678901234567890' },
      { authorization: 'Basic abc' },
    ];
    let sent = 0;
    const statuses: number[] = [];
    // 16 at a time, as a busy local process would.
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < 400) {
          const i = sent++;
          const res = await fetch(`${t.url}/v1/${i % 2 ? 'responses' : 'images/generations'}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers[i % 3] },
            body: bodies[i % 2],
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }),
    );
    expect(statuses).toHaveLength(400);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect({ rows: rows(), db: fileSize(db), wal: fileSize(`${db}-wal`) }).toEqual(before);

    // Counted in memory, for whoever wants the figure.
    const counted = await studio.json<{
      since: number;
      total: number;
      perMinute: Array<{ minute: number; count: number }>;
    }>('/api/admin/usage/rejected');
    expect(counted.total).toBe(400);
    expect(counted.perMinute.reduce((sum, m) => sum + m.count, 0)).toBe(400);

    // A request with a key is recorded as before.
    const ok = await t.client.images
      .generate({ model: 'image-model-2', prompt: 'x' })
      .withResponse();
    const row = await usageRow(t, ok.response.headers.get('x-request-id')!);
    expect(row.status).toBe(200);
    expect(rows()).toBe(before.rows + 1);
  });
});
