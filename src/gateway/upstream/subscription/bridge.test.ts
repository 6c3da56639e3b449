import { joinPieces } from '../../bytes/base64Pieces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64, diffByRegion, rectMask, testPicture } from '../../../../test/support/images';
import { startSimulator, type Simulator } from '../../../simulator';
import { imageUsage } from '../../../simulator/tokens';
import { UpstreamError } from '../../core/upstreamError';
import type { PartialImage } from '../types';
import { callOptions, generateJob, inputImage, subscriptionSetup } from './testing';

let sim: Simulator;
/** A backend without the native images channel: it answers 404 there. */
let legacy: Simulator;

beforeAll(async () => {
  [sim, legacy] = await Promise.all([
    startSimulator({ speed: 0 }),
    startSimulator({ speed: 0, nativeImages: false }),
  ]);
});
afterAll(() => Promise.all([sim.close(), legacy.close()]));

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError['failure']> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
}

const kindsFor = (s: Simulator, accountId: string) =>
  s.calls.filter((c) => c.accountId === accountId && c.kind !== 'oauth.token').map((c) => c.kind);

describe('subscription adapter: Responses bridge', () => {
  it('falls back to the bridge on a native 404, remembers it, and probes again an hour later', async () => {
    let clock = Date.now();
    const s = subscriptionSetup(legacy, { now: () => clock });
    const paths = () => s.sent.map((r) => r.path.replace('/backend-api/codex', ''));
    const first = await s.upstream.generateImage(generateJob(), callOptions());
    expect(first).toMatchObject({
      size: '1024x1024',
      quality: 'low',
      outputFormat: 'png',
      revisedPrompt: 'a lighthouse at dusk, rendered as a layered illustration',
    });
    expect(await decodeB64(joinPieces(first.b64).toString('latin1'))).toMatchObject({
      format: 'png',
      width: 1024,
      height: 1024,
    });
    expect(paths()).toEqual(['/images/generations', '/responses']);
    expect(legacy.calls.find((c) => c.kind === 'native.generate')).toMatchObject({ status: 404 });

    await s.upstream.generateImage(generateJob(), callOptions());
    expect(paths().slice(2)).toEqual(['/responses']);

    clock += 61 * 60_000;
    await s.upstream.generateImage(generateJob(), callOptions());
    expect(paths().slice(3)).toEqual(['/images/generations', '/responses']);
  });

  it('puts every image setting in the tool, never n, with the text model from the account', async () => {
    const s = subscriptionSetup(legacy, { bridgeModel: 'text-model-from-settings' });
    await s.upstream.generateImage(
      generateJob({
        size: '1536x1024',
        quality: 'medium',
        outputFormat: 'jpeg',
        outputCompression: 70,
        background: 'opaque',
        moderation: 'low',
      }),
      callOptions(),
    );
    const bridge = s.sent.find((r) => r.path.endsWith('/responses'))!;
    expect(bridge.headers.accept).toBe('text/event-stream');
    expect(bridge.body).toEqual({
      model: 'text-model-from-settings',
      instructions: expect.stringMatching(/\S/),
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'a lighthouse at dusk' }] }],
      tools: [
        {
          type: 'image_generation',
          model: 'image-model-2',
          size: '1536x1024',
          quality: 'medium',
          background: 'opaque',
          output_format: 'jpeg',
          output_compression: 70,
          moderation: 'low',
          action: 'generate',
        },
      ],
      tool_choice: { type: 'image_generation' },
      stream: true,
      store: false,
    });
    expect(legacy.calls.at(-1)).toMatchObject({
      kind: 'responses',
      path: '/backend-api/codex/responses',
      status: 200,
      model: 'text-model-from-settings',
      imageModel: 'image-model-2',
      size: '1536x1024',
      quality: 'medium',
      outputFormat: 'jpeg',
      originator: 'atelier',
    });
  });

  it('streams partial images through the bridge, since the native channel cannot', async () => {
    const s = subscriptionSetup(sim);
    const partials: PartialImage[] = [];
    const job = generateJob({ partialImages: 2 });
    const outcome = await s.upstream.generateImage(
      job,
      callOptions((p) => partials.push(p)),
    );
    expect(partials.map((p) => p.index)).toEqual([0, 1]);
    for (const partial of partials) {
      expect(await decodeB64(partial.b64.toString('latin1'))).toMatchObject({ width: 1024 });
    }
    expect(joinPieces(outcome.b64).equals(partials[1]!.b64)).toBe(false);
    expect(kindsFor(sim, s.accountId)).toEqual(['responses']);
    expect(sim.calls.at(-1)).toMatchObject({ partialImages: 2 });
    expect(outcome.usage).toEqual(
      imageUsage({
        prompt: job.prompt,
        inputImages: [],
        outputs: [{ width: 1024, height: 1024, quality: 'low' }],
        partialImages: 2,
      }),
    );
  });

  it('bills the image from tool_usage.image_gen, not from the text model usage', async () => {
    const s = subscriptionSetup(legacy);
    const job = generateJob({ prompt: 'a quiet harbour', quality: 'high' });
    const outcome = await s.upstream.generateImage(job, callOptions());
    const expected = imageUsage({
      prompt: job.prompt,
      inputImages: [],
      outputs: [{ width: 1024, height: 1024, quality: 'high' }],
      partialImages: 0,
    });
    expect(outcome.usage).toEqual(expected);
    expect(outcome.usage.output_tokens_details.image_tokens).toBe(4160);
  });

  it('edits through the bridge with the mask in the tool, honoured', async () => {
    const s = subscriptionSetup(legacy);
    const hole = { left: 0, top: 512, width: 1024, height: 256 };
    const original = await testPicture(1024, 1024);
    const job = generateJob({
      operation: 'edit',
      prompt: 'a boat on the water',
      images: [await inputImage(original)],
      mask: await inputImage(await rectMask(1024, 1024, hole), 'mask.png'),
    });
    const outcome = await s.upstream.generateImage(job, callOptions());
    expect(legacy.calls.at(-1)).toMatchObject({
      kind: 'responses',
      status: 200,
      hasMask: true,
      imageCount: 1,
    });
    const diff = diffByRegion(
      (await decodeB64(original.toString('base64'))).pixels,
      (await decodeB64(joinPieces(outcome.b64).toString('latin1'))).pixels,
      1024,
      hole,
    );
    expect(diff.outside).toBe(0);
    expect(diff.inside).toBeGreaterThan(diff.insideTotal / 2);
    expect(outcome.usage.input_tokens_details.image_tokens).toBeGreaterThan(0);
  });

  it('maps refusal text, empty output, downgrades and usage limits', async () => {
    const s = subscriptionSetup(legacy);
    const match = { accountId: s.accountId, path: '/responses' };
    const run = () => s.upstream.generateImage(generateJob({ size: '2048x2048' }), callOptions());

    legacy.faults.add({ kind: 'refusal', match });
    const refused = await failureOf(run());
    expect(refused.kind).toBe('refused');
    expect(refused.message).toMatch(/can't create that image/);

    legacy.faults.add({ kind: 'no_image', match });
    expect((await failureOf(run())).kind).toBe('no_image');

    legacy.faults.add({ kind: 'downgrade', match });
    const downgraded = await run();
    expect(downgraded).toMatchObject({ size: 'auto', quality: 'auto' });
    expect(await decodeB64(joinPieces(downgraded.b64).toString('latin1'))).toMatchObject({
      width: 1254,
      height: 1254,
    });

    legacy.faults.add({ kind: 'usage_limit', resetsInSeconds: 120, match });
    const limited = await failureOf(run());
    expect(limited.kind).toBe('usage_limit');
    const resetAt = limited.kind === 'usage_limit' ? limited.resetAt! : 0;
    expect(Math.abs(resetAt - (Date.now() + 120_000))).toBeLessThan(5_000);
  });
});
