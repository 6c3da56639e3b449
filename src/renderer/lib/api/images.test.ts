import { describe, expect, it, vi } from 'vitest';
import type { ImageRecord } from '../../../shared/admin';
import type { AdminEventHandlers, SubscribeAdminEvents } from './adminEvents';
import { GatewayError } from './errors';
import type { DeliveredImage, PartialImage } from './imageCall';
import { createImagesClient } from './images';
import { parsePrices } from './prices';
import type { FetchLike } from './request';

interface Call {
  url: string;
  init: RequestInit;
}

/** A stand-in for the network: the tests check what the client sends and how it reads answers. */
function fakeFetch(answer: (call: Call) => Response): { fetch: FetchLike; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    fetch: async (url, init = {}) => {
      const call = { url, init };
      calls.push(call);
      return answer(call);
    },
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A streamed body cut into `chunkSize`-byte pieces, as the network would deliver it. */
function sse(text: string, chunkSize = 7): Response {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' },
  });
}

const b64 = (text: string) => btoa(text);
const usage = (output: number) => ({
  input_tokens: 10,
  input_tokens_details: { text_tokens: 10, image_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { text_tokens: 0, image_tokens: output },
  total_tokens: 10 + output,
});

function event(type: string, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}

describe('gateway client', () => {
  it('sends the studio header with same-origin credentials and no API key', async () => {
    const net = fakeFetch(() => json(200, { ok: true }));
    await createImagesClient(net.fetch).session();
    const [call] = net.calls;
    expect(call?.url).toBe('/api/admin/session');
    expect(call?.init.credentials).toBe('same-origin');
    const headers = new Headers(call?.init.headers);
    expect(headers.get('x-atelier-studio')).toBe('1');
    expect(headers.has('authorization')).toBe(false);
  });

  it('reports a missing session as login, and other failures as errors', async () => {
    const login = fakeFetch(() => json(401, { error: { code: 'studio_session_required' } }));
    expect(await createImagesClient(login.fetch).session()).toBe('login');
    const broken = fakeFetch(() => json(500, { error: { message: 'boom' } }));
    await expect(createImagesClient(broken.fetch).session()).rejects.toThrow('boom');
    const offline: FetchLike = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(createImagesClient(offline).session()).rejects.toThrow(/did not answer/);
  });

  it('raises a session doubt on a 401, but not for the session probe or other failures', async () => {
    const onUnauthorized = vi.fn();
    const refused = fakeFetch(() => json(401, { error: { code: 'invalid_api_key' } }));
    const client = createImagesClient(refused.fetch, onUnauthorized);
    // The probe's 401 is its answer ('login'), not a reason to probe again.
    expect(await client.session()).toBe('login');
    expect(onUnauthorized).not.toHaveBeenCalled();
    await expect(
      client.runImages({ endpoint: 'generations', body: {} }, { onImage: () => {} }),
    ).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledOnce();
    await expect(client.prices()).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledTimes(2);

    const other = vi.fn();
    const failing = fakeFetch(() => json(403, { error: { code: 'forbidden_origin' } }));
    await expect(createImagesClient(failing.fetch, other).prices()).rejects.toMatchObject({
      status: 403,
    });
    expect(other).not.toHaveBeenCalled();
  });

  it('parses an error body into status, message, param and code', async () => {
    const net = fakeFetch(() =>
      json(
        400,
        {
          error: {
            message: 'size 1000x1000: width and height must each be a multiple of 16 px',
            type: 'invalid_request_error',
            param: 'size',
            code: 'invalid_size',
          },
        },
        { 'x-request-id': 'req_9' },
      ),
    );
    const error = await createImagesClient(net.fetch)
      .runImages({ endpoint: 'generations', body: { size: '1000x1000' } }, { onImage: () => {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).toInfo()).toEqual({
      status: 400,
      message: 'size 1000x1000: width and height must each be a multiple of 16 px',
      param: 'size',
      code: 'invalid_size',
      type: 'invalid_request_error',
      requestId: 'req_9',
      limit: null,
    });
  });

  it('posts generations as JSON and edits as multipart with the parent image header', async () => {
    const net = fakeFetch(() => json(200, { data: [], usage: usage(0) }));
    const client = createImagesClient(net.fetch);
    await client.runImages(
      { endpoint: 'generations', body: { prompt: 'p' } },
      { onImage: () => {} },
    );
    const form = new FormData();
    form.append('prompt', 'p');
    await client.runImages(
      { endpoint: 'edits', body: form, parentImageId: 'img_1' },
      { onImage: () => {} },
    );
    const [generate, edit] = net.calls;
    expect(generate?.url).toBe('/v1/images/generations');
    expect(new Headers(generate?.init.headers).get('content-type')).toBe('application/json');
    expect(generate?.init.body).toBe('{"prompt":"p"}');
    expect(edit?.url).toBe('/v1/images/edits');
    // The browser sets multipart's Content-Type with its boundary.
    expect(new Headers(edit?.init.headers).has('content-type')).toBe(false);
    expect(new Headers(edit?.init.headers).get('x-atelier-parent-image')).toBe('img_1');
    expect(edit?.init.body).toBe(form);
  });

  it('reads a JSON reply: every image, and the request usage', async () => {
    const net = fakeFetch(() =>
      json(
        200,
        {
          data: [{ b64_json: b64('one') }, { b64_json: b64('two'), revised_prompt: 'r' }],
          output_format: 'webp',
          size: '1024x1024',
          usage: usage(2112),
        },
        { 'x-request-id': 'req_2' },
      ),
    );
    const images: DeliveredImage[] = [];
    const result = await createImagesClient(net.fetch).runImages(
      { endpoint: 'generations', body: {} },
      { onImage: (image) => images.push(image) },
    );
    expect(result).toMatchObject({ requestId: 'req_2', images: 2 });
    expect(result.usage?.output_tokens).toBe(2112);
    expect(images.map((i) => [i.imageIndex, i.blob.type, i.revisedPrompt])).toEqual([
      [0, 'image/webp', null],
      [1, 'image/webp', 'r'],
    ]);
    expect(await images[1]?.blob.text()).toBe('two');
  });

  it('streams partial and final images of n > 1 by image_index and sums their usage', async () => {
    const stream =
      ': keepalive\n\n' +
      event('image_generation.partial_image', {
        b64_json: b64('p0'),
        partial_image_index: 0,
        image_index: 1,
        output_format: 'png',
      }) +
      event('image_generation.partial_image', {
        b64_json: b64('q0'),
        partial_image_index: 0,
        image_index: 0,
        output_format: 'png',
      }) +
      event('image_generation.completed', {
        b64_json: b64('final1'),
        image_index: 1,
        size: '1024x1024',
        output_format: 'png',
        usage: usage(1156),
      }) +
      event('image_generation.completed', {
        b64_json: b64('final0'),
        image_index: 0,
        size: '1024x1024',
        output_format: 'png',
        usage: usage(1156),
      });
    const net = fakeFetch(() => sse(stream));
    const partials: PartialImage[] = [];
    const finals: DeliveredImage[] = [];
    const result = await createImagesClient(net.fetch).runImages(
      { endpoint: 'generations', body: { stream: true, n: 2 } },
      { onPartial: (p) => partials.push(p), onImage: (i) => finals.push(i) },
    );
    expect(partials.map((p) => [p.imageIndex, p.partialIndex])).toEqual([
      [1, 0],
      [0, 0],
    ]);
    expect(finals.map((f) => f.imageIndex)).toEqual([1, 0]);
    expect(await finals[1]?.blob.text()).toBe('final0');
    expect(result).toMatchObject({ requestId: 'req_1', images: 2 });
    expect(result.usage?.total_tokens).toBe(2 * 1166);
  });

  it('rejects with the error of an error event, naming its param', async () => {
    const stream =
      event('image_edit.partial_image', { b64_json: b64('p'), partial_image_index: 0 }) +
      `event: error\ndata: ${JSON.stringify({
        type: 'error',
        error: {
          message: 'Upstream request failed: no image',
          type: 'upstream_error',
          param: null,
          code: 'upstream_no_image',
        },
      })}\n\n`;
    const net = fakeFetch(() => sse(stream, 5));
    const partials: PartialImage[] = [];
    const error = await createImagesClient(net.fetch)
      .runImages(
        { endpoint: 'edits', body: new FormData() },
        {
          onPartial: (p) => partials.push(p),
          onImage: () => {},
        },
      )
      .catch((e: unknown) => e);
    expect(partials).toHaveLength(1);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('upstream_no_image');
    expect((error as GatewayError).requestId).toBe('req_1');
  });

  it('refuses a malformed image event or reply with an error that says what was wrong', async () => {
    const stream =
      event('image_generation.partial_image', { b64_json: b64('p'), partial_image_index: 0 }) +
      event('image_generation.completed', { b64_json: 7, size: '1024x1024' }) +
      event('image_generation.completed', { b64_json: b64('never read') });
    const partials: PartialImage[] = [];
    const finals: DeliveredImage[] = [];
    const error = await createImagesClient(fakeFetch(() => sse(stream)).fetch)
      .runImages(
        { endpoint: 'generations', body: { stream: true } },
        { onPartial: (p) => partials.push(p), onImage: (i) => finals.push(i) },
      )
      .catch((e: unknown) => e);
    expect(partials).toHaveLength(1);
    expect(finals).toHaveLength(0);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 0, requestId: 'req_1' });
    expect((error as GatewayError).message).toMatch(
      /^The image stream sent a malformed 'image_generation\.completed' event \(b64_json: .*expected string/,
    );

    const reply = fakeFetch(() => json(200, { data: [{ b64_json: b64('x') }], usage: 'all' }));
    await expect(
      createImagesClient(reply.fetch).runImages(
        { endpoint: 'generations', body: {} },
        { onImage: () => {} },
      ),
    ).rejects.toThrow(/^POST \/v1\/images\/generations answered an unexpected body \(usage: /);
  });

  it('skips stream events of a type it does not know', async () => {
    const stream =
      event('image_generation.progress', { percent: 50 }) +
      event('image_generation.completed', { b64_json: b64('final'), usage: usage(10) });
    const finals: DeliveredImage[] = [];
    const result = await createImagesClient(fakeFetch(() => sse(stream)).fetch).runImages(
      { endpoint: 'generations', body: { stream: true } },
      { onImage: (i) => finals.push(i) },
    );
    expect(result.images).toBe(1);
    expect(await finals[0]?.blob.text()).toBe('final');
  });

  it('follows a kept studio run after an event, telling each numbered event handled', async () => {
    const stream =
      event('image_generation.partial_image', {
        b64_json: b64('p1'),
        partial_image_index: 1,
        sequence_number: 2,
      }) +
      event('image_generation.completed', {
        b64_json: b64('final'),
        usage: usage(10),
        sequence_number: 3,
      });
    const net = fakeFetch(() => sse(stream));
    const numbers: number[] = [];
    const partials: PartialImage[] = [];
    const result = await createImagesClient(net.fetch).followRun('run-0123456789', 1, 'req_9', {
      onPartial: (p) => partials.push(p),
      onImage: () => undefined,
      onSequence: (n) => numbers.push(n),
    });
    expect(net.calls[0]?.url).toBe('/api/admin/runs/run-0123456789/events?starting_after=1');
    expect(new Headers(net.calls[0]?.init.headers).get('accept')).toBe('text/event-stream');
    expect(numbers).toEqual([2, 3]);
    expect(partials.map((p) => p.partialIndex)).toEqual([1]);
    expect(result).toMatchObject({ requestId: 'req_9', images: 1 });
    // From the start: no starting_after at all.
    await createImagesClient(net.fetch).followRun('run-0123456789', -1, null, {
      onImage: () => undefined,
    });
    expect(net.calls[1]?.url).toBe('/api/admin/runs/run-0123456789/events');
  });

  it('passes the abort signal to fetch so a request can be cancelled', async () => {
    const controller = new AbortController();
    const net = fakeFetch(({ init }) => {
      if (init.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      return json(200, { data: [] });
    });
    controller.abort();
    await expect(
      createImagesClient(net.fetch).runImages(
        { endpoint: 'generations', body: {}, signal: controller.signal },
        { onImage: () => {} },
      ),
    ).rejects.toThrow('aborted');
  });
});

describe('parsePrices', () => {
  it('reads decimal dollar strings per model', async () => {
    const row = { textInput: '5', imageInput: '8', textOutput: '10', imageOutput: '30.5' };
    expect(parsePrices({ prices: [{ model: 'm', ...row, updatedAt: 0 }] })).toEqual({
      m: {
        textInput: 5_000_000,
        imageInput: 8_000_000,
        textOutput: 10_000_000,
        imageOutput: 30_500_000,
      },
    });
    // The prices answer is checked against its schema before it is read.
    const net = fakeFetch(() => json(200, { prices: { m: row } }));
    await expect(createImagesClient(net.fetch).prices()).rejects.toThrow(/unexpected/);
  });
});

describe('findImage', () => {
  const record = (requestId: string, index: number): ImageRecord => ({
    id: `img_${requestId}_${index}`,
    requestId,
    index,
    createdAt: 1,
    source: 'studio',
    endpoint: '/images/generations',
    prompt: 'p',
    revisedPrompt: null,
    model: 'gpt-image-2',
    requestedSize: '1024x1024',
    deliveredSize: '1024x1024',
    quality: 'low',
    outputFormat: 'png',
    outputCompression: null,
    background: null,
    moderation: null,
    width: 1024,
    height: 1024,
    bytes: 100,
    inputTokens: 10,
    outputTokens: 100,
    totalTokens: 110,
    costMicros: 1,
    favourite: false,
    rejected: false,
    parentId: null,
    hasMask: false,
    apiKeyId: null,
    fallbackStep: null,
  });

  /** The events stream as findImage sees it: the test says when it is live and what arrives. */
  function eventsStream() {
    const subscribers = new Set<AdminEventHandlers>();
    const subscribe: SubscribeAdminEvents = (handlers) => {
      subscribers.add(handlers);
      return () => subscribers.delete(handlers);
    };
    const each = (call: (h: AdminEventHandlers) => void) => [...subscribers].forEach(call);
    return {
      subscribe,
      subscribers,
      live: () => each((h) => h.onConnection?.(true)),
      image: (image: ImageRecord) => each((h) => h.onImage?.(image)),
    };
  }

  /** A gallery whose studio page the test fills; every GET is counted. */
  function gallery(images: ImageRecord[]) {
    return fakeFetch(({ url }) => {
      expect(url).toBe('/api/admin/images?source=studio&limit=50');
      return json(200, { images, nextBefore: null });
    });
  }

  it('finds an image already stored once the stream is live', async () => {
    const events = eventsStream();
    const net = gallery([record('req_0', 0), record('req_1', 1)]);
    const found = createImagesClient(net.fetch, () => {}, events.subscribe).findImage('req_1', 1);
    events.live();
    expect(await found).toMatchObject({ id: 'img_req_1_1' });
    expect(net.calls).toHaveLength(1);
    expect(events.subscribers.size).toBe(0);
  });

  it("waits for the image's event rather than asking again", async () => {
    const events = eventsStream();
    const net = gallery([]);
    let settled = false;
    const found = createImagesClient(net.fetch, () => {}, events.subscribe)
      .findImage('req_1', 0)
      .finally(() => (settled = true));
    events.live();
    await vi.waitFor(() => expect(net.calls).toHaveLength(1));
    events.image(record('req_1', 1)); // another image of the same request
    events.image(record('req_2', 0));
    await Promise.resolve();
    expect(settled).toBe(false);
    events.image(record('req_1', 0));
    expect(await found).toMatchObject({ id: 'img_req_1_0' });
    expect(net.calls).toHaveLength(1);
    expect(events.subscribers.size).toBe(0);
  });

  it('looks a last time when no event came in time, and gives null if the image never came', async () => {
    vi.useFakeTimers();
    try {
      const events = eventsStream();
      const stored: ImageRecord[] = [];
      const net = gallery(stored);
      const client = createImagesClient(net.fetch, () => {}, events.subscribe);
      // The stream never goes live (a missed event is the same): only the final look remains.
      const late = client.findImage('req_1', 0, 5_000);
      stored.push(record('req_1', 0));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(await late).toMatchObject({ id: 'img_req_1_0' });

      const never = client.findImage('req_9', 0, 5_000);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(await never).toBeNull();
      expect(net.calls).toHaveLength(2);
      expect(events.subscribers.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('survives a gallery that fails to answer', async () => {
    const events = eventsStream();
    const net = fakeFetch(() => json(500, { error: { message: 'boom' } }));
    const found = createImagesClient(net.fetch, () => {}, events.subscribe).findImage('req_1', 0);
    events.live();
    await vi.waitFor(() => expect(net.calls).toHaveLength(1));
    events.image(record('req_1', 0));
    expect(await found).toMatchObject({ id: 'img_req_1_0' });
  });
});
