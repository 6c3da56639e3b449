import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { API_KEY, decode, meanDiff, postJson, readSse, simControl } from './helpers';

let sim: Simulator;
let url: string;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  url = `${sim.url}/v1/images/generations`;
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.calls.length = 0;
});

interface ImagesBody {
  created: number;
  data: { b64_json: string; revised_prompt: string }[];
  background: string;
  output_format: string;
  quality: string;
  size: string;
  usage: {
    input_tokens: number;
    input_tokens_details: { text_tokens: number; image_tokens: number };
    output_tokens: number;
    output_tokens_details: { image_tokens: number; text_tokens: number };
    total_tokens: number;
  };
}

async function generate(body: Record<string, unknown>): Promise<ImagesBody> {
  const response = await postJson(url, { model: 'image-model-2', ...body });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  return (await response.json()) as ImagesBody;
}

describe('POST /v1/images/generations', () => {
  it.each([
    ['1536x1024', 'webp'],
    ['1024x1536', 'jpeg'],
    ['2048x1152', 'png'],
    ['1024x1024', 'png'],
  ] as const)('renders %s %s at exactly that size and format', async (size, format) => {
    const body = await generate({
      prompt: 'a red fox in snow',
      size,
      output_format: format,
      quality: 'low',
    });
    const [width, height] = size.split('x').map(Number);
    const image = await decode(body.data[0]!.b64_json);
    expect(image).toMatchObject({ format, width, height });
    expect(body).toMatchObject({
      size,
      output_format: format,
      quality: 'low',
      background: 'opaque',
    });
  });

  it("resolves size 'auto' and absent settings to 1024x1024 png medium", async () => {
    const body = await generate({ prompt: 'defaults', size: 'auto', quality: null, n: null });
    const image = await decode(body.data[0]!.b64_json);
    expect(image).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect(body).toMatchObject({ size: '1024x1024', quality: 'medium', output_format: 'png' });
    expect(body.data[0]!.revised_prompt).toContain('defaults');
    expect(body.created).toBeGreaterThan(1_700_000_000);
  });

  it('is deterministic per prompt, size and format, and differs across prompts', async () => {
    const a = await generate({ prompt: 'a lighthouse at dusk', size: '1024x1024' });
    const b = await generate({ prompt: 'a lighthouse at dusk', size: '1024x1024' });
    const c = await generate({ prompt: 'a lighthouse at dawn', size: '1024x1024' });
    expect(a.data[0]!.b64_json).toBe(b.data[0]!.b64_json);
    expect(c.data[0]!.b64_json).not.toBe(a.data[0]!.b64_json);
  });

  it('returns n distinct images and bills each', async () => {
    const one = await generate({ prompt: 'three cats', quality: 'low' });
    const three = await generate({ prompt: 'three cats', quality: 'low', n: 3 });
    expect(three.data).toHaveLength(3);
    expect(new Set(three.data.map((d) => d.b64_json)).size).toBe(3);
    expect(three.data[0]!.b64_json).toBe(one.data[0]!.b64_json);
    expect(three.usage.output_tokens).toBe(3 * one.usage.output_tokens);
    expect(three.usage.input_tokens).toBe(one.usage.input_tokens);
    expect(sim.calls.at(-1)).toMatchObject({ kind: 'images.generate', n: 3, status: 200 });
  });

  it('honours output_compression as the jpeg and webp quality', async () => {
    const loose = await generate({
      prompt: 'compress me',
      output_format: 'jpeg',
      output_compression: 10,
    });
    const tight = await generate({
      prompt: 'compress me',
      output_format: 'jpeg',
      output_compression: 100,
    });
    expect(Buffer.from(loose.data[0]!.b64_json, 'base64').length).toBeLessThan(
      Buffer.from(tight.data[0]!.b64_json, 'base64').length / 2,
    );
  });

  it('accounts tokens by quality, shape and pixel count', async () => {
    const prompt = 'x'.repeat(41);
    const square = await generate({ prompt, size: '1024x1024', quality: 'medium' });
    expect(square.usage).toEqual({
      input_tokens: 11,
      input_tokens_details: { text_tokens: 11, image_tokens: 0 },
      output_tokens: 1056,
      output_tokens_details: { image_tokens: 1056, text_tokens: 0 },
      total_tokens: 1067,
    });
    const portrait = await generate({ prompt, size: '1024x1536', quality: 'high' });
    expect(portrait.usage.output_tokens).toBe(6240);
    const landscape = await generate({ prompt, size: '1536x1024', quality: 'low' });
    expect(landscape.usage.output_tokens).toBe(400);
    const auto = await generate({ prompt, size: '1024x1024', quality: 'auto' });
    expect(auto.usage.output_tokens).toBe(1056);
    const big = await generate({
      prompt,
      size: '3840x2160',
      quality: 'low',
      output_format: 'jpeg',
    });
    expect(big.usage.output_tokens).toBe(Math.round((400 * 3840 * 2160) / (1536 * 1024)));
    expect(big.usage.output_tokens).toBeGreaterThan(5 * landscape.usage.output_tokens);
  });

  it.each([
    [{ size: '1000x1000' }, 'size'],
    [{ size: '4096x1024' }, 'size'],
    [{ size: 'big' }, 'size'],
    [{ background: 'transparent' }, 'background'],
    [{ quality: 'ultra' }, 'quality'],
    [{ output_format: 'gif' }, 'output_format'],
    [{ n: 11 }, 'n'],
    [{ n: '2' }, 'n'],
    [{ partial_images: 4 }, 'partial_images'],
    [{ output_compression: 101 }, 'output_compression'],
    [{ model: 'dall-e-9' }, 'model'],
    [{ prompt: '' }, 'prompt'],
    [{ response_format: 'url' }, 'response_format'],
  ])('rejects %j with a provider-style 400 naming %s', async (patch, param) => {
    const response = await postJson(url, { model: 'image-model-2', prompt: 'p', ...patch });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(typeof body.error.message).toBe('string');
    expect(typeof body.error.code).toBe('string');
  });

  it('requires a bearer token and refuses revoked ones', async () => {
    const missing = await postJson(url, { model: 'image-model-2', prompt: 'p' }, {});
    expect(missing.status).toBe(401);
    const revoke = await postJson(
      `${sim.url}/__sim/revoke`,
      { token: 'sk-revoked' },
      simControl(sim),
    );
    expect(revoke.status).toBe(200);
    const revoked = await postJson(
      url,
      { model: 'image-model-2', prompt: 'p' },
      { authorization: 'Bearer sk-revoked' },
    );
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_api_key',
    );
  });

  it('lists text models only on /v1/models', async () => {
    const response = await fetch(`${sim.url}/v1/models`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const body = (await response.json()) as { data: { id: string }[] };
    expect(body.data.map((m) => m.id)).toEqual(['agent-model-1', 'agent-model-1-mini']);
  });

  it('answers unknown routes 404 and wrong methods 405', async () => {
    expect((await fetch(`${sim.url}/v1/nope`)).status).toBe(404);
    const wrong = await fetch(url);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('streaming generations', () => {
  it('sends partial_images partials, each a sharper stage of the final image, then completed', async () => {
    const response = await postJson(url, {
      model: 'image-model-2',
      prompt: 'a stream of partials',
      size: '1024x1024',
      quality: 'low',
      stream: true,
      partial_images: 3,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(response);
    expect(events.map((e) => e.event)).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    const partials = events.slice(0, 3).map((e) => e.data);
    expect(partials.map((p) => p.partial_image_index)).toEqual([0, 1, 2]);
    const completed = events[3]!.data;
    expect(completed).toMatchObject({
      size: '1024x1024',
      quality: 'low',
      background: 'opaque',
      output_format: 'png',
    });
    expect(completed).not.toHaveProperty('image_index');
    expect((completed.usage as { output_tokens: number }).output_tokens).toBe(272 + 3 * 100);

    const final = await decode(String(completed.b64_json));
    const diffs: number[] = [];
    for (const partial of partials) {
      const image = await decode(String(partial.b64_json));
      expect(image).toMatchObject({ width: 1024, height: 1024, format: 'png' });
      diffs.push(meanDiff(image.pixels, final.pixels));
    }
    expect(diffs[0]).toBeGreaterThan(diffs[1]!);
    expect(diffs[1]).toBeGreaterThan(diffs[2]!);
    expect(diffs[2]).toBeGreaterThan(0);

    const plain = await generate({
      prompt: 'a stream of partials',
      size: '1024x1024',
      quality: 'low',
    });
    expect(completed.b64_json).toBe(plain.data[0]!.b64_json);
  });

  it('streams n > 1 image after image with image_index; usage sums to the non-streamed usage', async () => {
    const body = { model: 'image-model-2', prompt: 'two streamed', quality: 'low', n: 2 };
    const events = await readSse(await postJson(url, { ...body, stream: true, partial_images: 1 }));
    expect(events.map((e) => [e.event, e.data.image_index])).toEqual([
      ['image_generation.partial_image', 0],
      ['image_generation.completed', 0],
      ['image_generation.partial_image', 1],
      ['image_generation.completed', 1],
    ]);
    const usages = events
      .filter((e) => e.event.endsWith('completed'))
      .map((e) => e.data.usage as { total_tokens: number });
    const plain = await generate(body);
    expect(usages[0]!.total_tokens + usages[1]!.total_tokens).toBe(
      plain.usage.total_tokens + 2 * 100,
    );
  });

  it('streams just the completed event when partial_images is 0', async () => {
    const events = await readSse(
      await postJson(url, { model: 'image-model-2', prompt: 'p', stream: true }),
    );
    expect(events.map((e) => e.event)).toEqual(['image_generation.completed']);
  });
});

describe('connections', () => {
  it('keeps an idle connection for 65 s and tells its clients so, not the 5 s of a bare Node server', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const call = () =>
      new Promise<{ keepAlive: unknown; reused: boolean }>((resolve, reject) => {
        const req = http.request(`${sim.url}/v1/models`, {
          agent,
          headers: { authorization: `Bearer ${API_KEY}` },
        });
        req.on('response', (res) => {
          res.on('error', reject);
          res.resume();
          res.on('end', () =>
            resolve({ keepAlive: res.headers['keep-alive'], reused: req.reusedSocket }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await call()).toEqual({ keepAlive: 'timeout=65', reused: false });
      expect(await call()).toEqual({ keepAlive: 'timeout=65', reused: true });
    } finally {
      agent.destroy();
    }
  });
});
