import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDIO_RUN_HEADER } from '../../src/shared/admin';
import {
  clearFaults,
  scriptFaults,
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
afterAll(async () => {
  await t.close();
});

const body = JSON.stringify({
  model: 'image-model-2',
  prompt: 'a lighthouse that takes forever',
  size: '1024x1024',
  quality: 'low',
});

const cancel = async (runId: string) => {
  const res = await studio.fetch(`/api/admin/runs/${runId}/cancel`, { method: 'POST' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** Cancels `runId` as soon as the gateway has it in flight (its request is on its way). */
const cancelWhenRunning = (runId: string) =>
  expect.poll(async () => (await cancel(runId)).body.cancelled, { timeout: 10_000 }).toBe(true);

describe('cancelling a studio run', () => {
  it('stops the upstream work: the request ends at once as 499, with nothing made or billed', async () => {
    // The upstream would take a minute to answer.
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 60_000 }]);
    const runId = 'run-0123456789abcdef';
    const started = Date.now();
    const reply = studio.fetch('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', [STUDIO_RUN_HEADER]: runId },
      body,
    });
    await cancelWhenRunning(runId);
    const res = await reply;
    const requestId = res.headers.get('x-request-id')!;
    await res.arrayBuffer();
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({
      status: 499,
      error_code: 'client_cancelled',
      images: 0,
      total_tokens: 0,
      cost_micros: 0,
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    // Cancelling again, once it has ended, is an answer rather than an error.
    expect(await cancel(runId)).toEqual({ status: 200, body: { cancelled: false } });
    await clearFaults(t.simUrl);
  });

  it('only cancels the studio’s own runs: a key’s run with the header is out of its reach', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 1_500 }]);
    const calls = t.gateway.simulator!.calls;
    const before = calls.length;
    const runId = 'run-fromanotherapp01';
    const reply = fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        [STUDIO_RUN_HEADER]: runId,
      },
      body,
    });
    // While its upstream call is under way, the studio cannot stop it...
    await expect.poll(() => calls.length).toBeGreaterThan(before);
    expect((await cancel(runId)).body).toEqual({ cancelled: false });
    // ...and it finishes normally.
    const res = await reply;
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('refuses a malformed run id by name, and callers without the studio session', async () => {
    const bad = await cancel('no');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { param: 'runId' } });
    const outsider = await fetch(`${t.url}/api/admin/runs/run-0123456789abcdef/cancel`, {
      method: 'POST',
      headers: { 'x-atelier-studio': '1' },
    });
    expect(outsider.status).toBe(401);
  });
});
