import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clearFaults,
  scriptFaults,
  startTestGateway,
  usageRow,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterEach(() => clearFaults(t.simUrl));
afterAll(() => t.close());

async function generate(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a harbour at noon', ...body }),
  });
  const json = (await res.json()) as { quality?: string };
  return { res, json, row: await usageRow(t, res.headers.get('x-request-id')!) };
}

describe('the usage record says what was delivered beside what was asked', () => {
  it('records the quality a ladder step delivered, as the reply says it', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'no_image', times: 1 }]);
    const { res, json, row } = await generate(
      { size: '3840x2160', quality: 'high', output_format: 'jpeg' },
      { 'x-atelier-fallback': 'ladder' },
    );
    expect(res.status).toBe(200);
    expect(json.quality).toBe('medium');
    expect(row).toMatchObject({
      quality: 'high',
      delivered_quality: 'medium',
      size: '3840x2160',
      delivered_size: '3840x2160',
      fallback_step: '2',
    });
  });

  it('records the same quality on both sides when nothing stepped down', async () => {
    const { row } = await generate({ size: '1024x1024', quality: 'low' });
    expect(row).toMatchObject({ quality: 'low', delivered_quality: 'low', fallback_step: null });
  });

  const responses = async (tool: Record<string, unknown>) => {
    const { request_id } = await t.client.responses
      .create({
        model: 'agent-model-1',
        input: 'Draw a paper crane.',
        tools: [{ type: 'image_generation', ...tool }],
      } as Parameters<typeof t.client.responses.create>[0])
      .withResponse();
    return usageRow(t, request_id!);
  };

  it('records the output format a Responses image was delivered in when the tool names none', async () => {
    const row = await responses({ size: '1024x1536', quality: 'low' });
    expect(row).toMatchObject({
      endpoint: '/responses',
      images: 1,
      output_format: 'png',
      size: '1024x1536',
      delivered_size: '1024x1536',
      quality: 'low',
      delivered_quality: 'low',
    });
  });

  it('keeps the format the tool named', async () => {
    const row = await responses({ size: '1024x1024', output_format: 'webp' });
    expect(row).toMatchObject({ output_format: 'webp', images: 1 });
  });
});
