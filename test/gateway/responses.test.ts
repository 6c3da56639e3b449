import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64 } from '../support/images';
import { startTestGateway, usageRow, type TestGateway } from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

const tool = {
  type: 'image_generation' as const,
  quality: 'low' as const,
  size: '1024x1536' as const,
  output_format: 'jpeg' as const,
};

describe('POST /v1/responses with the image_generation tool', () => {
  it('returns the image from the tool call and bills the image from the tool usage', async () => {
    const { data, request_id } = await t.client.responses
      .create({ model: 'agent-model-1', input: 'Draw a paper crane.', tools: [tool] })
      .withResponse();
    const call = data.output.find((item) => item.type === 'image_generation_call');
    expect(call).toBeDefined();
    if (call?.type !== 'image_generation_call') throw new Error('no image call');
    const image = await decodeB64(call.result!);
    expect([image.width, image.height, image.format]).toEqual([1024, 1536, 'jpeg']);
    const row = await usageRow(t, request_id!);
    expect(row).toMatchObject({
      endpoint: '/responses',
      model: 'agent-model-1',
      status: 200,
      images: 1,
      size: '1024x1536',
    });
    expect(row.output_image_tokens).toBeGreaterThan(0);
    expect(row.cost_micros).toBeGreaterThan(0);
  });

  it('streams events that responses.stream() accepts, ending in the final response', async () => {
    const stream = t.client.responses.stream({
      model: 'agent-model-1',
      input: 'Draw a kite.',
      tools: [{ ...tool, partial_images: 1 }],
    });
    const types = new Set<string>();
    stream.on('event', (event) => types.add(event.type));
    const final = await stream.finalResponse();
    expect(types.has('response.created')).toBe(true);
    expect(types.has('response.image_generation_call.partial_image')).toBe(true);
    const call = final.output.find((item) => item.type === 'image_generation_call');
    if (call?.type !== 'image_generation_call') throw new Error('no image call');
    expect((await decodeB64(call.result!)).format).toBe('jpeg');
  });

  it('answers a text-only call without the tool', async () => {
    const res = await t.client.responses.create({
      model: 'agent-model-1-mini',
      input: 'Say hello.',
    });
    expect(res.output_text.length).toBeGreaterThan(0);
  });

  it('adds the image tool for official agent clients that leave it out, and only for them', async () => {
    const agent = await t.client.responses.create(
      { model: 'agent-model-1', input: 'Draw a fox.' },
      { headers: { originator: 'codex_cli_rs' } },
    );
    expect(agent.output.some((item) => item.type === 'image_generation_call')).toBe(true);
    const app = await t.client.responses.create({ model: 'agent-model-1', input: 'Draw a fox.' });
    expect(app.output.some((item) => item.type === 'image_generation_call')).toBe(false);
  });

  it('refuses the image model as the main model, saying why', async () => {
    const err = await t.client.responses
      .create({ model: 'image-model-2', input: 'x', tools: [tool] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'model' });
    expect((err as Error).message).toMatch(/image_generation/);
  });

  it('validates the tool fields like the image endpoints', async () => {
    const err = await t.client.responses
      .create({
        model: 'agent-model-1',
        input: 'x',
        tools: [{ type: 'image_generation', size: '1000x1000' as 'auto' }],
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'tools[0].size' });
  });
});
