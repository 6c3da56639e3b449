import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { API_KEY, decode, testPicture } from './helpers';

/** The real openai-node client against the API-key routes: what callers' SDKs will send. */

let sim: Simulator;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  client = new OpenAI({ apiKey: API_KEY, baseURL: `${sim.url}/v1`, maxRetries: 0 });
});
afterAll(() => sim.close());

describe('openai-node images', () => {
  it('images.generate returns a decodable image and usage', async () => {
    const result = await client.images.generate({
      model: 'image-model-2',
      prompt: 'an sdk test',
      size: '1024x1536',
      quality: 'low',
      output_format: 'webp',
    });
    expect(await decode(result.data![0]!.b64_json!)).toMatchObject({
      format: 'webp',
      width: 1024,
      height: 1536,
    });
    expect(result.usage?.output_tokens).toBe(408);
    expect(result._request_id).toMatch(/^req_/);
  });

  it('images.generate with stream yields partial and completed events', async () => {
    const stream = await client.images.generate({
      model: 'image-model-2',
      prompt: 'an sdk stream',
      stream: true,
      partial_images: 2,
      quality: 'low',
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
  });

  it('images.edit uploads several images as multipart', async () => {
    const first = await toFile(await testPicture(1024, 1024), 'first.png', { type: 'image/png' });
    const second = await toFile(await testPicture(1024, 1024, 'jpeg'), 'second.jpg');
    const result = await client.images.edit({
      model: 'image-model-2',
      prompt: 'an sdk edit',
      image: [first, second],
      n: 2,
      quality: 'low',
    });
    expect(result.data).toHaveLength(2);
    expect(await decode(result.data![0]!.b64_json!)).toMatchObject({ width: 1024, height: 1024 });
    expect(sim.calls.at(-1)).toMatchObject({
      kind: 'images.edit',
      imageCount: 2,
      n: 2,
      status: 200,
    });
  });
});
