import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { decode, postJson } from './helpers';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, payload: 'noise' });
});
afterAll(() => sim.close());

describe("payload 'noise'", () => {
  it('makes a 1024x1024 PNG larger than 3 MiB, deterministically', async () => {
    const body = { model: 'image-model-2', prompt: 'benchmark', size: '1024x1024' };
    const first = (await (await postJson(`${sim.url}/v1/images/generations`, body)).json()) as {
      data: { b64_json: string }[];
    };
    const second = (await (await postJson(`${sim.url}/v1/images/generations`, body)).json()) as {
      data: { b64_json: string }[];
    };
    const bytes = Buffer.from(first.data[0]!.b64_json, 'base64');
    expect(bytes.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(await decode(first.data[0]!.b64_json)).toMatchObject({
      format: 'png',
      width: 1024,
      height: 1024,
    });
    expect(second.data[0]!.b64_json).toBe(first.data[0]!.b64_json);
  });
});
