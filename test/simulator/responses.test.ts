import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import {
  API_KEY,
  decode,
  login,
  postJson,
  readSse,
  subscriptionHeaders,
  testPicture,
} from './helpers';
import type { Login, SseEvent } from './helpers';

let sim: Simulator;
let auth: Login;
let bridge: string;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  auth = await login(sim);
  bridge = `${sim.url}/backend-api/codex/responses`;
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
});

type Json = Record<string, unknown>;

function bridgeBody(prompt: string, tool: Json = {}, extra: Json = {}): Json {
  return {
    model: 'agent-model-1',
    instructions: 'You are an image assistant.',
    input: [{ role: 'user', content: [{ type: 'input_text', text: prompt }] }],
    tools: [
      {
        type: 'image_generation',
        model: 'image-model-2',
        size: '1024x1024',
        quality: 'low',
        output_format: 'png',
        partial_images: 2,
        ...tool,
      },
    ],
    tool_choice: { type: 'image_generation' },
    stream: true,
    store: false,
    ...extra,
  };
}

async function runBridge(body: Json): Promise<SseEvent[]> {
  const response = await postJson(bridge, body, subscriptionHeaders(auth));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return readSse(response);
}

function completedResponse(events: SseEvent[]): Json {
  const last = events.at(-1)!;
  expect(last.event).toBe('response.completed');
  return last.data.response as Json;
}

describe('openai-node against /v1/responses', () => {
  it('responses.stream() accepts the event sequence and yields the final response', async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${sim.url}/v1`, maxRetries: 0 });
    const stream = client.responses.stream({
      model: 'agent-model-1',
      input: 'Draw a paper boat on a pond',
      tools: [{ type: 'image_generation', size: '1024x1024', quality: 'low', partial_images: 2 }],
    });
    const partials: number[] = [];
    stream.on('response.image_generation_call.partial_image', (event) =>
      partials.push(event.partial_image_index),
    );
    const final = await stream.finalResponse();
    expect(partials).toEqual([0, 1]);
    expect(final.status).toBe('completed');
    const call = final.output[0];
    expect(call?.type).toBe('image_generation_call');
    if (call?.type !== 'image_generation_call') return;
    expect(call.status).toBe('completed');
    expect(await decode(call.result!)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
  });

  it('responses.stream() accepts a text-only answer', async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${sim.url}/v1`, maxRetries: 0 });
    const final = await client.responses
      .stream({ model: 'agent-model-1', input: 'Say hello' })
      .finalResponse();
    expect(final.output_text).toContain('Say hello');
  });

  it('answers JSON when not streaming', async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${sim.url}/v1`, maxRetries: 0 });
    const response = await client.responses.create({
      model: 'agent-model-1',
      input: 'A teapot',
      tools: [{ type: 'image_generation', size: '1536x1024', output_format: 'webp' }],
    });
    const call = response.output[0];
    expect(call?.type).toBe('image_generation_call');
    if (call?.type !== 'image_generation_call') return;
    expect(await decode(call.result!)).toMatchObject({ format: 'webp', width: 1536, height: 1024 });
  });
});

describe('responses bridge', () => {
  it('emits the full event sequence with increasing sequence numbers', async () => {
    const events = await runBridge(bridgeBody('a kite over a beach'));
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.image_generation_call.in_progress',
      'response.image_generation_call.generating',
      'response.image_generation_call.partial_image',
      'response.image_generation_call.partial_image',
      'response.image_generation_call.completed',
      'response.output_item.done',
      'response.completed',
    ]);
    events.forEach((e, i) => {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
    });
    const added = events[2]!.data.item as Json;
    expect(added).toMatchObject({ type: 'image_generation_call', status: 'in_progress' });
    const partial = events[5]!.data;
    expect(partial).toMatchObject({ item_id: added.id, output_index: 0, partial_image_index: 0 });
    const done = events[8]!.data.item as Json;
    expect(done).toMatchObject({
      id: added.id,
      status: 'completed',
      size: '1024x1024',
      quality: 'low',
      output_format: 'png',
      background: 'opaque',
    });
    expect(String(done.revised_prompt)).toContain('a kite over a beach');
    const final = completedResponse(events);
    expect((final.output as Json[])[0]).toEqual(done);
    expect((final.tools as Json[])[0]).toMatchObject({
      type: 'image_generation',
      size: '1024x1024',
      quality: 'low',
      partial_images: 2,
    });
    const usage = final.usage as { total_tokens: number };
    const image = (
      final.tool_usage as {
        image_gen: { output_tokens: number; input_tokens: number; total_tokens: number };
      }
    ).image_gen;
    expect(image.output_tokens).toBe(272 + 2 * 100);
    expect(image.total_tokens).toBe(image.input_tokens + image.output_tokens);
    expect(usage.total_tokens).toBeLessThan(100);
    expect(sim.calls.at(-1)).toMatchObject({
      kind: 'responses',
      path: '/backend-api/codex/responses',
      model: 'agent-model-1',
      imageModel: 'image-model-2',
      accountId: auth.accountId,
    });
  });

  it('edits the input image when one is attached', async () => {
    const picture = await testPicture(1024, 1536);
    const body = bridgeBody('add a hat', { size: 'auto', partial_images: 1 });
    (body.input as { content: Json[] }[])[0]!.content.push({
      type: 'input_image',
      image_url: `data:image/png;base64,${picture.toString('base64')}`,
    });
    const events = await runBridge(body);
    const done = events.find((e) => e.event === 'response.output_item.done')!.data.item as Json;
    expect(await decode(String(done.result))).toMatchObject({ width: 1024, height: 1536 });
    expect(done.action).toBe('edit');
    const image = (
      completedResponse(events).tool_usage as {
        image_gen: { input_tokens_details: { image_tokens: number } };
      }
    ).image_gen;
    expect(image.input_tokens_details.image_tokens).toBe(65 + 2 * 129);
  });

  it.each([
    ['tools[0].n', bridgeBody('p', { n: 2 })],
    ['instructions', bridgeBody('p', {}, { instructions: '' })],
    ['instructions', { ...bridgeBody('p'), instructions: undefined }],
    ['stream', bridgeBody('p', {}, { stream: false })],
    ['tools[0].size', bridgeBody('p', { size: '999x999' })],
    ['model', bridgeBody('p', {}, { model: 'image-model-2' })],
  ])('rejects with 400 naming %s', async (param, body) => {
    const response = await postJson(bridge, body, subscriptionHeaders(auth));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  });

  it('answers a plain text message without an image tool', async () => {
    const events = await runBridge({ ...bridgeBody('just chat'), tools: [], tool_choice: 'auto' });
    expect(events.map((e) => e.event)).toContain('response.output_text.delta');
    const final = completedResponse(events);
    const message = (final.output as Json[])[0]!;
    expect(message).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
  });

  it('needs a live subscription token', async () => {
    const response = await postJson(bridge, bridgeBody('p'), {
      authorization: 'Bearer sk-not-a-token',
    });
    expect(response.status).toBe(401);
  });
});
