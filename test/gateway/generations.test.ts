import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64 } from '../support/images';
import { startTestGateway, usageCount, usageRow, type TestGateway } from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/images/generations with the official client', () => {
  for (const [format, size] of [
    ['png', '1024x1024'],
    ['jpeg', '1024x1536'],
    ['webp', '1536x1024'],
  ] as const) {
    it(`returns a real ${format} at exactly ${size} with usage, and records it`, async () => {
      const { data, request_id } = await t.client.images
        .generate({
          model: 'image-model-2',
          prompt: `a lighthouse at dusk (${format})`,
          size,
          output_format: format,
          quality: 'low',
        })
        .withResponse();
      expect(data.data).toHaveLength(1);
      const image = await decodeB64(data.data![0]!.b64_json!);
      expect(`${image.width}x${image.height}`).toBe(size);
      expect(image.format).toBe(format);
      expect(data).toMatchObject({
        model: 'image-model-2',
        output_format: format,
        size,
        quality: 'low',
        background: expect.any(String),
      });
      expect(typeof data.created).toBe('number');
      const usage = data.usage!;
      expect(usage.output_tokens).toBeGreaterThan(0);
      expect(usage.input_tokens_details.text_tokens).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);

      expect(request_id).toMatch(/^req_/);
      const row = await usageRow(t, request_id!);
      expect(row).toMatchObject({
        endpoint: '/images/generations',
        model: 'image-model-2',
        size,
        delivered_size: size,
        quality: 'low',
        output_format: format,
        n: 1,
        stream: 0,
        status: 200,
        error_code: null,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        total_tokens: usage.total_tokens,
        images: 1,
        upstream_account_id: 'simulator',
        group_name: 'default',
      });
      expect(row.cost_micros).toBeGreaterThan(0);
      expect(row.api_key_id).toMatch(/^key_/);
      expect(usageCount(t.db, request_id!)).toBe(1);
    });
  }

  it('honours output_compression for jpeg (lower quality, fewer bytes)', async () => {
    const gen = (c: number) =>
      t.client.images.generate({
        model: 'image-model-2',
        prompt: 'a field of poppies',
        output_format: 'jpeg',
        output_compression: c,
        size: '1024x1024',
      });
    const [high, low] = await Promise.all([gen(95), gen(10)]);
    expect(Buffer.from(low.data![0]!.b64_json!, 'base64').length).toBeLessThan(
      Buffer.from(high.data![0]!.b64_json!, 'base64').length,
    );
  });

  it('returns n=3 images, each a full image, with usage summed over them', async () => {
    const single = await t.client.images.generate({
      model: 'image-model-2-2026-04-21',
      prompt: 'three pears',
      size: '1024x1024',
    });
    const { data, request_id } = await t.client.images
      .generate({
        model: 'image-model-2-2026-04-21',
        prompt: 'three pears',
        n: 3,
        size: '1024x1024',
      })
      .withResponse();
    expect(data.data).toHaveLength(3);
    for (const item of data.data!) {
      const image = await decodeB64(item.b64_json!);
      expect([image.width, image.height, image.format]).toEqual([1024, 1024, 'png']);
    }
    expect((data as unknown as { model: string }).model).toBe('image-model-2-2026-04-21');
    expect(data.usage!.output_tokens).toBe(3 * single.usage!.output_tokens);
    const row = await usageRow(t, request_id!);
    expect(row).toMatchObject({ n: 3, images: 3, output_tokens: data.usage!.output_tokens });
  });

  it('n=3 draws three different pictures, the same three for the same request and seed again', async () => {
    const ask = (seed?: string) =>
      t.client.images.generate(
        { model: 'image-model-2', prompt: 'three pears', n: 3 },
        seed ? { headers: { 'x-atelier-sim-seed': seed } } : {},
      );
    const first = (await ask('pears-1')).data!.map((d) => d.b64_json!);
    expect(new Set(first).size).toBe(3);
    const again = (await ask('pears-1')).data!.map((d) => d.b64_json!);
    // Each call of the fan-out carries its index to the simulator: order may differ, not content.
    expect([...again].sort()).toEqual([...first].sort());
    // Without a seed of the caller's, running it again draws new pictures (issue 22, defect 11).
    const fresh = (await ask()).data!.map((d) => d.b64_json!);
    expect(fresh.filter((image) => first.includes(image))).toEqual([]);
  });

  it("size 'auto' is accepted and reports the size actually delivered", async () => {
    const res = await t.client.images.generate({
      model: 'image-model-2',
      prompt: 'a teapot',
      size: 'auto',
    });
    const image = await decodeB64(res.data![0]!.b64_json!);
    expect(res.size).toBe(`${image.width}x${image.height}`);
  });

  it('treats explicit null as absent for every optional field', async () => {
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'a kite',
        n: null,
        size: null,
        quality: null,
        output_format: null,
        output_compression: null,
        background: null,
        moderation: null,
        stream: null,
        partial_images: null,
        user: null,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ b64_json: string }>; output_format: string };
    expect(body.data).toHaveLength(1);
    expect(body.output_format).toBe('png');
  });

  it('records the end user given in `user`', async () => {
    const { request_id } = await t.client.images
      .generate({ model: 'image-model-2', prompt: 'a violin', user: 'artist-42' })
      .withResponse();
    expect((await usageRow(t, request_id!)).user).toBe('artist-42');
  });
});

describe('streaming generations', () => {
  it('streams partial_images partial events and one completed event per image', async () => {
    const stream = await t.client.images.generate({
      model: 'image-model-2',
      prompt: 'a harbour in fog',
      size: '1536x1024',
      stream: true,
      partial_images: 2,
      output_format: 'webp',
    });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    const [p0, p1, done] = events;
    if (
      p0?.type !== 'image_generation.partial_image' ||
      p1?.type !== 'image_generation.partial_image'
    )
      throw new Error('order');
    expect([p0.partial_image_index, p1.partial_image_index]).toEqual([0, 1]);
    const partial = await decodeB64(p0.b64_json);
    expect([partial.width, partial.height]).toEqual([1536, 1024]);
    if (done?.type !== 'image_generation.completed') throw new Error('no completed');
    const final = await decodeB64(done.b64_json);
    expect([final.width, final.height, final.format]).toEqual([1536, 1024, 'webp']);
    expect(done).toMatchObject({
      size: '1536x1024',
      output_format: 'webp',
      background: expect.any(String),
      quality: expect.any(String),
    });
    expect(done.usage.output_tokens).toBeGreaterThan(0);
    // Earlier stages differ from the final image.
    expect(p0.b64_json).not.toBe(done.b64_json);
  });

  it('streams n=2 as interleaved events tagged with image_index, two completed events', async () => {
    const stream = await t.client.images.generate({
      model: 'image-model-2',
      prompt: 'two moons',
      n: 2,
      stream: true,
      partial_images: 1,
    });
    const events: Array<{ type: string; image_index?: number }> = [];
    for await (const event of stream)
      events.push(event as unknown as { type: string; image_index?: number });
    const completed = events.filter((e) => e.type === 'image_generation.completed');
    expect(completed.map((e) => e.image_index).sort()).toEqual([0, 1]);
    const partials = events.filter((e) => e.type === 'image_generation.partial_image');
    expect(partials.map((e) => e.image_index).sort()).toEqual([0, 1]);
  });

  it('records a streamed request once with the partial-image tokens', async () => {
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'a fox',
        stream: true,
        partial_images: 3,
      }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const requestId = res.headers.get('x-request-id')!;
    const completed = text
      .split('\n\n')
      .find((block) => block.startsWith('event: image_generation.completed'))!;
    const usage = (
      JSON.parse(completed.slice(completed.indexOf('data: ') + 6)) as {
        usage: { output_tokens: number };
      }
    ).usage;
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({
      stream: 1,
      status: 200,
      output_tokens: usage.output_tokens,
      images: 1,
    });
    expect(usageCount(t.db, requestId)).toBe(1);
  });
});

describe('GET /v1/models', () => {
  it('lists the text/agent models and both image model ids', async () => {
    const ids = [];
    for await (const model of t.client.models.list()) ids.push(model.id);
    expect(ids).toEqual(
      expect.arrayContaining(['agent-model-1', 'image-model-2', 'image-model-2-2026-04-21']),
    );
    const one = await t.client.models.retrieve('image-model-2');
    expect(one.id).toBe('image-model-2');
  });
});
