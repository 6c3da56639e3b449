import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRIES } from '../../src/gateway/dispatch/retryPolicy';
import { scriptFaults, simInit, startTestGateway, type TestGateway } from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

/** Calls the simulator received (it read each body in full before the fault dropped it). */
async function upstreamCalls(prompt: string): Promise<number> {
  const res = await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl));
  const { calls } = (await res.json()) as { calls: Array<{ prompt?: string }> };
  return calls.filter((c) => c.prompt === prompt).length;
}

function generate(prompt: string) {
  return fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt, size: '1024x1024', quality: 'low' }),
  });
}

describe('an upstream that reads the whole request and then drops the connection', () => {
  it('receives one client request exactly 1 + maxRetries times', async () => {
    const prompt = 'drop after body: one request';
    await scriptFaults(t.simUrl, [{ kind: 'reset', times: 50, match: { promptIncludes: prompt } }]);
    const res = await generate(prompt);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'upstream_network_error',
    );
    expect(await upstreamCalls(prompt)).toBe(1 + DEFAULT_RETRIES.maxRetries);
  });

  it('never more than that per request when 20 arrive at once', async () => {
    const prompts = Array.from({ length: 20 }, (_, i) => `drop after body: burst ${i}`);
    await scriptFaults(
      t.simUrl,
      prompts.map((prompt) => ({ kind: 'reset', times: 50, match: { promptIncludes: prompt } })),
    );
    const answers = await Promise.all(prompts.map((prompt) => generate(prompt)));
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(500);
      await res.arrayBuffer();
    }
    const calls = await Promise.all(prompts.map((prompt) => upstreamCalls(prompt)));
    for (const n of calls) expect(n).toBeLessThanOrEqual(1 + DEFAULT_RETRIES.maxRetries);
    expect(calls.every((n) => n >= 1)).toBe(true);
  });
});
