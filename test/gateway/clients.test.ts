import { ChatOpenAI, DallEAPIWrapper, tools } from '@langchain/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64 } from '../support/images';
import { startTestGateway, usageRow, type TestGateway } from '../support/gateway';

/**
 * Common clients, unmodified, against a real gateway: the official openai client's URL replies,
 * LangChain's DALL-E wrapper (which always sends `style` and asks for URLs by default) and
 * LangChain's image tool on the Responses API. The client matrix in docs/api.md lists these.
 */

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

/** An image URL fetched as any client would: no key, no studio session. */
async function fetchImage(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, image: await decodeB64(bytes.toString('base64')) };
}

describe('response_format: "url"', () => {
  it('answers with signed URLs on the gateway that serve the images for an hour, without the key', async () => {
    const started = Date.now();
    const reply = await t.client.images.generate({
      model: 'image-model-2',
      prompt: 'two pears on a plate',
      size: '1536x1024',
      output_format: 'webp',
      n: 2,
      response_format: 'url',
    });
    expect(reply.data).toHaveLength(2);
    const urls = reply.data!.map((d) => d.url!);
    expect(reply.data!.every((d) => d.b64_json === undefined)).toBe(true);
    expect(new Set(urls).size).toBe(2);
    for (const url of urls) {
      expect(url.startsWith(`${t.url}/v1/images/files/`)).toBe(true);
      const expires = Number(new URL(url).searchParams.get('expires')) * 1000;
      expect(expires - started).toBeGreaterThan(59 * 60_000);
      expect(expires - started).toBeLessThanOrEqual(61 * 60_000);
      const { res, image } = await fetchImage(url);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect([image.width, image.height, image.format]).toEqual([1536, 1024, 'webp']);
    }
    expect(reply.size).toBe('1536x1024');
  });

  it('a URL is its own credential: altered, unsigned or listed, it is a 404', async () => {
    const reply = await t.client.images.generate({
      model: 'image-model-2',
      prompt: 'a blue teapot',
      response_format: 'url',
    });
    const url = new URL(reply.data![0]!.url!);
    const statusOf = async (u: string) => (await fetch(u)).status;
    const signature = url.searchParams.get('signature')!;
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const forged = new URL(url);
    forged.searchParams.set(
      'signature',
      signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
    );
    const unsigned = new URL(url);
    unsigned.search = '';
    expect(await statusOf(later.href)).toBe(404);
    expect(await statusOf(forged.href)).toBe(404);
    expect(await statusOf(unsigned.href)).toBe(404);
    // There is nothing that lists them: without a key the folder is the key-protected API (401),
    // with one it is an unknown endpoint.
    for (const folder of [`${t.url}/v1/images/files/`, `${t.url}/v1/images/files`]) {
      expect(await statusOf(folder)).toBe(401);
      const withKey = await fetch(folder, { headers: { authorization: `Bearer ${t.key}` } });
      expect(withKey.status).toBe(404);
    }
    // The right URL still works, and the key-protected API stays key-protected.
    expect(await statusOf(url.href)).toBe(200);
    expect(await statusOf(`${t.url}/v1/models`)).toBe(401);
  });

  it('is refused with stream: true, whose events always carry base64', async () => {
    const error = (await t.client.images
      .generate({
        model: 'image-model-2',
        prompt: 'a kite',
        response_format: 'url',
        stream: true,
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    expect(error.param).toBe('response_format');
  });

  it('works for edits too', async () => {
    const source = await t.client.images.generate({ model: 'image-model-2', prompt: 'a room' });
    const png = Buffer.from(source.data![0]!.b64_json!, 'base64');
    const edit = await t.client.images.edit({
      model: 'image-model-2',
      prompt: 'add a lamp',
      image: await OpenAI.toFile(png, 'room.png', { type: 'image/png' }),
      response_format: 'url',
    });
    const { image } = await fetchImage(edit.data![0]!.url!);
    expect(image.format).toBe('png');
  });
});

describe('DALL-E-era fields', () => {
  it('style is accepted and ignored, quality standard/hd read as medium/high, with a warning header', async () => {
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'a windmill',
        style: 'natural',
        quality: 'hd',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-warning')).toBe(
      "quality 'hd' is a DALL-E 3 value and was read as 'high'; style 'natural' is a DALL-E 3 parameter and was ignored",
    );
    const row = await usageRow(t, res.headers.get('x-request-id')!);
    expect(row.quality).toBe('high');
  });

  it('a style outside DALL-E 3 values is still a 400 naming it', async () => {
    const error = (await t.client.images
      .generate({ model: 'image-model-2', prompt: 'x', style: 'loud' as never })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    expect(error.param).toBe('style');
  });
});

describe('LangChain', () => {
  it("DallEAPIWrapper with its defaults (style 'vivid', quality 'standard', url) returns a working URL", async () => {
    const dalle = new DallEAPIWrapper({
      apiKey: t.key,
      baseUrl: `${t.url}/v1`,
      model: 'image-model-2',
    });
    const url = (await dalle.invoke('a lighthouse in fog')) as string;
    expect(url.startsWith(`${t.url}/v1/images/files/`)).toBe(true);
    const { image } = await fetchImage(url);
    expect([image.width, image.height, image.format]).toEqual([1024, 1024, 'png']);
  });

  it('DallEAPIWrapper with b64_json and n = 2 returns the images', async () => {
    const one = new DallEAPIWrapper({
      apiKey: t.key,
      baseUrl: `${t.url}/v1`,
      model: 'image-model-2',
      dallEResponseFormat: 'b64_json',
      size: '1792x1024',
      quality: 'hd',
    });
    const b64 = (await one.invoke('a fox in snow')) as string;
    const image = await decodeB64(b64);
    expect([image.width, image.height]).toEqual([1792, 1024]);

    const two = new DallEAPIWrapper({
      apiKey: t.key,
      baseUrl: `${t.url}/v1`,
      model: 'image-model-2',
      n: 2,
    });
    const parts = (await two.invoke('a paper crane')) as Array<{ image_url: string }>;
    expect(parts).toHaveLength(2);
    for (const part of parts) await fetchImage(part.image_url);
  });

  it('the image_generation tool on ChatOpenAI (Responses API) returns the image', async () => {
    const model = new ChatOpenAI({
      model: 'agent-model-1',
      apiKey: t.key,
      configuration: { baseURL: `${t.url}/v1` },
      useResponsesApi: true,
      maxRetries: 0,
    });
    const reply = await model.invoke('Draw a small red boat on a calm sea.', {
      tools: [tools.imageGeneration({ size: '1024x1024', quality: 'low', outputFormat: 'jpeg' })],
    });
    const outputs = (reply.additional_kwargs.tool_outputs ?? []) as Array<{
      type: string;
      result?: string;
      status?: string;
    }>;
    const call = outputs.find((o) => o.type === 'image_generation_call');
    expect(call?.status).toBe('completed');
    const image = await decodeB64(call!.result!);
    expect([image.width, image.height, image.format]).toEqual([1024, 1024, 'jpeg']);
  });
});

describe('sizes are canonical', () => {
  it('01024x1024 is a 400 that names the rule', async () => {
    const error = (await t.client.images
      .generate({ model: 'image-model-2', prompt: 'x', size: '01024x1024' as never })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_size');
    expect(error.message).toMatch(/not in canonical form.*no leading zeros, signs or spaces/);
  });
});
