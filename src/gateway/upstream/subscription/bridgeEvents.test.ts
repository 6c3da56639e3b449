import { joinPieces } from '../../bytes/base64Pieces';
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../core/upstreamError';
import { parseSse } from '../../bytes/sse';
import { readBridgeImage } from './bridgeImage';
import { assembleResponse } from './responsesRelay';

/*
 * Bridge streams the simulator does not script (failures inside a 200 stream, results only in
 * response.completed, partials without a final image), written out as the protocol page
 * describes them and fed through the real SSE parser in small chunks.
 */

const NOW = 1_800_000_000_000;
const IMAGE = Buffer.from('final image bytes '.repeat(40)).toString('base64');
const PARTIAL = Buffer.from('partial image bytes '.repeat(40)).toString('base64');
const USAGE = {
  input_tokens: 10,
  input_tokens_details: { text_tokens: 10, image_tokens: 0 },
  output_tokens: 272,
  output_tokens_details: { text_tokens: 0, image_tokens: 272 },
  total_tokens: 282,
};
const TEXT_USAGE = { input_tokens: 900, output_tokens: 50, total_tokens: 950 };

async function* chunks(events: object[]): AsyncGenerator<Buffer> {
  const text = events
    .map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`)
    .join('');
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += 97) yield bytes.subarray(i, i + 97);
}

const read = (events: object[], onPartial?: (p: { b64: Buffer; index: number }) => void) =>
  readBridgeImage(chunks(events), { headers: {}, now: () => NOW, onPartial });

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError['failure']> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
}

const created = { type: 'response.created', response: { id: 'resp_1', tools: [] } };
const tool = {
  type: 'image_generation',
  size: 'auto',
  quality: 'auto',
  output_format: 'png',
  background: 'opaque',
};
const completed = (output: object[], extra: object = {}) => ({
  type: 'response.completed',
  response: {
    id: 'resp_1',
    created_at: 1234,
    output,
    tools: [tool],
    usage: TEXT_USAGE,
    tool_usage: { image_gen: USAGE },
    ...extra,
  },
});

describe('bridge stream reading', () => {
  it('takes the result from response.completed when no output_item.done came, billed from tool_usage', async () => {
    const outcome = await read([
      created,
      completed([
        { id: 'ig_1', type: 'image_generation_call', result: IMAGE, revised_prompt: 'rp' },
      ]),
    ]);
    expect(joinPieces(outcome.b64).toString('latin1')).toBe(IMAGE);
    expect(outcome).toMatchObject({
      created: 1234,
      revisedPrompt: 'rp',
      size: 'auto',
      quality: 'auto',
      outputFormat: 'png',
    });
    expect(outcome.usage).toEqual(USAGE);
  });

  it('falls back to the last partial image only when no final image came', async () => {
    const seen: number[] = [];
    const outcome = await read(
      [
        created,
        {
          type: 'response.image_generation_call.partial_image',
          partial_image_b64: IMAGE,
          partial_image_index: 0,
        },
        {
          type: 'response.image_generation_call.partial_image',
          partial_image_b64: PARTIAL,
          partial_image_index: 1,
        },
        completed([]),
      ],
      (p) => seen.push(p.index),
    );
    expect(seen).toEqual([0, 1]);
    expect(joinPieces(outcome.b64).toString('latin1')).toBe(PARTIAL);
  });

  it('turns failures inside the stream into UpstreamErrors', async () => {
    const limited = await failureOf(
      read([
        created,
        {
          type: 'response.failed',
          response: {
            error: { code: 'usage_limit_reached', message: 'limit', resets_in_seconds: 90 },
          },
        },
      ]),
    );
    expect(limited).toEqual({ kind: 'usage_limit', resetAt: NOW + 90_000, message: 'limit' });
    expect(
      await failureOf(read([{ type: 'error', code: 'server_error', message: 'boom' }])),
    ).toMatchObject({
      kind: 'http',
      status: 502,
      code: 'server_error',
    });
    expect(
      await failureOf(
        read([
          {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              code: 'invalid_value',
              message: 'bad',
              param: 'tools[0].size',
            },
          },
        ]),
      ),
    ).toMatchObject({ kind: 'http', status: 400, param: 'tools[0].size' });
    expect(
      await failureOf(read([{ type: 'error', code: 'rate_limit_exceeded', message: 'slow down' }])),
    ).toMatchObject({
      kind: 'rate_limited',
    });
    expect(
      await failureOf(
        read([
          created,
          {
            type: 'response.incomplete',
            response: { incomplete_details: { reason: 'content_filter' } },
          },
        ]),
      ),
    ).toMatchObject({ kind: 'refused' });
  });

  it('tells a refusal from other text, and a cut stream from an empty answer', async () => {
    const say = (text: string) => [
      created,
      { type: 'response.output_text.delta', delta: text },
      completed([{ type: 'message', content: [{ type: 'output_text', text }] }]),
    ];
    expect(
      await failureOf(read(say('Sorry, I cannot help with generating that image.'))),
    ).toMatchObject({
      kind: 'refused',
      message: 'Sorry, I cannot help with generating that image.',
    });
    const chatty = await failureOf(read(say('Here is a description of a lighthouse.')));
    expect(chatty.kind).toBe('no_image');
    expect(chatty.message).toContain('Here is a description of a lighthouse.');
    expect((await failureOf(read([created]))).kind).toBe('bad_response');
  });
});

describe('non-streaming assembly', () => {
  it('fills a missing result from output_item.done and keeps the image bytes exact', async () => {
    const body = await assembleResponse(
      parseSse(
        chunks([
          created,
          {
            type: 'response.output_item.done',
            item: { id: 'ig_1', type: 'image_generation_call', result: IMAGE },
          },
          completed([{ id: 'ig_1', type: 'image_generation_call', result: null }]),
        ]),
      ),
      {},
      () => NOW,
    );
    const response = JSON.parse(body.toString('utf8')) as {
      output: Array<{ result: string }>;
      usage: unknown;
    };
    expect(response.output[0]!.result).toBe(IMAGE);
    expect(response.usage).toEqual(TEXT_USAGE);

    const fromItems = await assembleResponse(
      parseSse(
        chunks([
          {
            type: 'response.output_item.done',
            item: { id: 'ig_2', type: 'image_generation_call', result: PARTIAL },
          },
          completed([]),
        ]),
      ),
      {},
      () => NOW,
    );
    expect(
      (JSON.parse(fromItems.toString('utf8')) as { output: Array<{ result: string }> }).output[0]!
        .result,
    ).toBe(PARTIAL);
  });

  it('throws on response.failed and on a stream that never completes', async () => {
    const assemble = (events: object[]) =>
      assembleResponse(parseSse(chunks(events)), {}, () => NOW);
    expect(
      (
        await failureOf(
          assemble([
            created,
            {
              type: 'response.failed',
              response: { error: { code: 'server_error', message: 'x' } },
            },
          ]),
        )
      ).kind,
    ).toBe('http');
    expect((await failureOf(assemble([created]))).kind).toBe('bad_response');
  });
});
