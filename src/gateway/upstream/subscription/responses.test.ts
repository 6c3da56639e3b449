import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64 } from '../../../../test/support/images';
import { startSimulator, type Simulator } from '../../../simulator';
import { imageUsage } from '../../../simulator/tokens';
import { UpstreamError } from '../../core/upstreamError';
import { DEFAULT_INSTRUCTIONS } from './responsesRelay';
import { subscriptionSetup } from './testing';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
});
afterAll(() => sim.close());

const timing = () => ({ signal: new AbortController().signal, timeoutMs: 60_000 });

const callerBody = () => ({
  model: 'agent-model-1',
  input: [{ role: 'user', content: [{ type: 'input_text', text: 'draw a fox' }] }],
  tools: [
    { type: 'image_generation', model: 'image-model-2', size: '1024x1024', quality: 'low', n: 2 },
  ],
});

interface ResponseJson {
  object: string;
  status: string;
  model: string;
  output: Array<{ type: string; result?: string; size?: string }>;
  tool_usage: { image_gen: unknown };
}

describe('subscription adapter: /v1/responses through the bridge', () => {
  it('streams upstream for a non-streaming caller and answers the completed response', async () => {
    const s = subscriptionSetup(sim);
    const reply = await s.upstream.responses(callerBody(), { ...timing(), stream: false });
    expect(reply).toMatchObject({ status: 200, contentType: 'application/json' });
    const response = JSON.parse(reply.body!.toString('utf8')) as ResponseJson;
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'agent-model-1',
    });
    const image = response.output.find((item) => item.type === 'image_generation_call')!;
    expect(await decodeB64(image.result!)).toMatchObject({ width: 1024, height: 1024 });
    expect(response.tool_usage.image_gen).toEqual(
      imageUsage({
        prompt: 'draw a fox',
        inputImages: [],
        outputs: [{ width: 1024, height: 1024, quality: 'low' }],
        partialImages: 0,
      }),
    );

    const sent = s.sent[0]!.body!;
    expect(sent).toMatchObject({ stream: true, store: false, instructions: DEFAULT_INSTRUCTIONS });
    expect((sent.tools as object[])[0]).not.toHaveProperty('n');
    expect(s.sent[0]!.headers.accept).toBe('text/event-stream');
    expect(sim.calls.at(-1)).toMatchObject({ kind: 'responses', status: 200, stream: true });
  });

  it('keeps the caller instructions and passes a streaming call through event by event', async () => {
    const s = subscriptionSetup(sim);
    const reply = await s.upstream.responses(
      { ...callerBody(), instructions: 'Be brief.', stream: true },
      { ...timing(), stream: true },
    );
    expect(reply.contentType).toMatch(/text\/event-stream/);
    const names: string[] = [];
    for await (const event of reply.events!) names.push(event.event ?? '');
    expect(names[0]).toBe('response.created');
    expect(names).toContain('response.image_generation_call.completed');
    expect(names.at(-1)).toBe('response.completed');
    expect(s.sent[0]!.body).toMatchObject({ instructions: 'Be brief.' });
  });

  it('answers text-only calls, and throws upstream failures as UpstreamErrors', async () => {
    const s = subscriptionSetup(sim);
    const text = await s.upstream.responses(
      { model: 'agent-model-1', input: 'hello' },
      { ...timing(), stream: false },
    );
    const response = JSON.parse(text.body!.toString('utf8')) as ResponseJson;
    expect(response.output[0]).toMatchObject({ type: 'message' });

    sim.faults.add({ kind: 'usage_limit', match: { accountId: s.accountId } });
    const error = await s.upstream
      .responses(callerBody(), { ...timing(), stream: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).failure.kind).toBe('usage_limit');
  });
});
