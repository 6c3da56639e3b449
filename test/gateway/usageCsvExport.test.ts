import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  studioLogin,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

/**
 * The usage CSV of a large log (issue 23): the export reads it in keyset pages and yields to the
 * event loop between them, so a request that arrives meanwhile is answered in its usual time
 * instead of waiting for the whole export (3.3 s per 200,000 rows on c7d61aa).
 */

const ROWS = 200_000;
let t: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
  // One INSERT ... SELECT over a counter: 200,000 rows in one statement, oldest first.
  t.db
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @rows)
       INSERT INTO usage_records (request_id, created_at, endpoint, model, size, status, images,
         input_tokens, output_tokens, total_tokens, cost_micros, api_key_id)
       SELECT 'req_csv_' || i, 1700000000000 + (i / 3), '/v1/images/generations', 'image-model-2',
         '1024x1024', 200, 1, 20, 272, 292, 8200, NULL FROM n`,
    )
    .run({ rows: ROWS });
});
afterAll(async () => {
  await t.close();
});

/** How long GET /healthz takes, from asking to the end of its answer. */
async function healthLatency(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${t.url}/healthz`);
  await res.text();
  return performance.now() - started;
}

describe('GET /api/admin/usage.csv on a large log', () => {
  it('streams every row once, newest first, while other requests keep their usual latency', async () => {
    const idle: number[] = [];
    for (let i = 0; i < 5; i++) idle.push(await healthLatency());

    const res = await studio.fetch('/api/admin/usage.csv');
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let exportDone = false;
    // Requests sent one after another for as long as the export runs: the slowest is the
    // longest stall the export caused.
    const during: number[] = [];
    const probing = (async () => {
      while (!exportDone) during.push(await healthLatency());
    })();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    exportDone = true;
    await probing;

    const lines = text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(ROWS + 1);
    const ids = lines.slice(1).map((line) => /req_csv_(\d+)/.exec(line)?.[1]);
    expect(new Set(ids).size).toBe(ROWS);
    expect(ids[0]).toBe(String(ROWS));
    expect(ids[ROWS - 1]).toBe('1');

    const worst = Math.max(...during);
    const usual = Math.max(...idle);
    console.log(
      `usage.csv of ${ROWS} rows: ${during.length} requests answered during the export,` +
        ` slowest ${worst.toFixed(0)} ms (idle: slowest of 5 ${usual.toFixed(0)} ms)`,
    );
    // The export yields after each of its 200 pages, so requests are answered all along it:
    // about one per two or three pages, however fast the machine (a slower machine makes both
    // the pages and the requests slower). c7d61aa yielded only when the socket was full: 7
    // answers, the slowest after 2,037 ms, against 99 and 365 ms here (load average 24 on 2 cores).
    // The latencies are printed, not asserted: a time limit would measure the machine.
    expect(during.length).toBeGreaterThanOrEqual(25);
  });
});
