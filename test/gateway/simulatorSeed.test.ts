import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_SEED_HEADER } from '../../src/simulator/variant';
import { startTestGateway, type TestGateway } from '../support/gateway';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

/** One image of the prompt through the gateway's /v1, as its base64 text. */
async function draw(prompt: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'image-model-2', prompt, size: '1024x1024', quality: 'low' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Array<{ b64_json: string }> };
  return body.data[0]!.b64_json;
}

describe('the built-in simulator behind the gateway (issue 22, defect 11)', () => {
  it('draws a new picture for every request of the same prompt', async () => {
    const first = await draw('A lighthouse in fog');
    const again = await draw('A lighthouse in fog');
    expect(again).not.toBe(first);
  });

  it('draws the same picture twice for a caller that names its seed', async () => {
    const seeded = { [SIM_SEED_HEADER]: 'fixed-seed-1' };
    const first = await draw('A lighthouse in fog', seeded);
    expect(await draw('A lighthouse in fog', seeded)).toBe(first);
    expect(await draw('A lighthouse in fog', { [SIM_SEED_HEADER]: 'fixed-seed-2' })).not.toBe(
      first,
    );
  });

  it('ignores a seed that is not a short plain word and still draws anew', async () => {
    const odd = { [SIM_SEED_HEADER]: 'spaces are not allowed' };
    expect(await draw('A lighthouse in fog', odd)).not.toBe(await draw('A lighthouse in fog', odd));
  });
});
