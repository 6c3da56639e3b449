import { joinPieces } from '../../bytes/base64Pieces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64, diffByRegion, rectMask, testPicture } from '../../../../test/support/images';
import { startSimulator, type Simulator } from '../../../simulator';
import { imageUsage } from '../../../simulator/tokens';
import { VERSION } from '../../core/version';
import { UpstreamError } from '../../core/upstreamError';
import { callOptions, generateJob, inputImage, subscriptionSetup } from './testing';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
});
afterAll(() => sim.close());

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError['failure']> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
}

describe('subscription adapter: native images channel', () => {
  it('generates on the native channel with the account headers, billed as the upstream says', async () => {
    const s = subscriptionSetup(sim);
    const job = generateJob({ size: '1024x1536', quality: 'low', outputFormat: 'jpeg' });
    const outcome = await s.upstream.generateImage(job, callOptions());
    const image = await decodeB64(joinPieces(outcome.b64).toString('latin1'));
    expect(image).toMatchObject({ format: 'jpeg', width: 1024, height: 1536 });
    expect(outcome).toMatchObject({ size: '1024x1536', quality: 'low', outputFormat: 'jpeg' });
    expect(outcome.usage).toEqual(
      imageUsage({
        prompt: job.prompt,
        inputImages: [],
        outputs: [{ width: 1024, height: 1536, quality: 'low' }],
        partialImages: 0,
      }),
    );
    expect(sim.calls.at(-1)).toMatchObject({
      kind: 'native.generate',
      status: 200,
      accountId: s.accountId,
      originator: 'atelier',
      size: '1024x1536',
      quality: 'low',
      outputFormat: 'jpeg',
    });

    await s.upstream.generateImage(job, callOptions());
    const [first, second] = s.sent;
    expect(first!.path).toBe('/backend-api/codex/images/generations');
    expect(first!.headers).toMatchObject({
      authorization: `Bearer ${s.accessToken}`,
      'chatgpt-account-id': s.accountId,
      originator: 'atelier',
      'user-agent': `Atelier/${VERSION}`,
    });
    expect(first!.headers.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers.session_id).toBe(first!.headers.session_id);
    expect(subscriptionSetup(sim).upstream).not.toBe(s.upstream);
    expect(first!.body).not.toHaveProperty('n');
  });

  it('sends every image setting the caller gave, and an originator of choice', async () => {
    const s = subscriptionSetup(sim, { originator: 'atelier-studio' });
    await s.upstream.generateImage(
      generateJob({
        quality: 'medium',
        outputFormat: 'webp',
        outputCompression: 60,
        background: 'opaque',
        moderation: 'low',
      }),
      callOptions(),
    );
    expect(s.sent[0]!.body).toEqual({
      prompt: 'a lighthouse at dusk',
      model: 'image-model-2',
      size: '1024x1024',
      quality: 'medium',
      background: 'opaque',
      output_format: 'webp',
      output_compression: 60,
      moderation: 'low',
    });
    expect(sim.calls.at(-1)).toMatchObject({ originator: 'atelier-studio' });
  });

  it('edits with image and mask as data URLs: pixels outside the mask come back unchanged', async () => {
    const s = subscriptionSetup(sim);
    const hole = { left: 256, top: 256, width: 512, height: 384 };
    const original = await testPicture(1024, 1024);
    const outcome = await s.upstream.generateImage(
      generateJob({
        operation: 'edit',
        prompt: 'a red balloon',
        images: [await inputImage(original)],
        mask: await inputImage(await rectMask(1024, 1024, hole), 'mask.png'),
      }),
      callOptions(),
    );
    expect(sim.calls.at(-1)).toMatchObject({
      kind: 'native.edit',
      status: 200,
      hasMask: true,
      imageCount: 1,
    });
    const before = await decodeB64(original.toString('base64'));
    const after = await decodeB64(joinPieces(outcome.b64).toString('latin1'));
    const diff = diffByRegion(before.pixels, after.pixels, 1024, hole);
    expect(diff.outside).toBe(0);
    expect(diff.inside).toBeGreaterThan(diff.insideTotal / 2);
  });

  it('reports a silent downgrade as the upstream echoed it', async () => {
    const s = subscriptionSetup(sim);
    sim.faults.add({ kind: 'downgrade', match: { accountId: s.accountId } });
    const outcome = await s.upstream.generateImage(
      generateJob({ size: '2048x2048', quality: 'high' }),
      callOptions(),
    );
    expect(outcome).toMatchObject({ size: 'auto', quality: 'auto' });
    expect(await decodeB64(joinPieces(outcome.b64).toString('latin1'))).toMatchObject({
      width: 1254,
      height: 1254,
    });
  });

  it('classifies refusals, missing images, usage limits and request errors', async () => {
    const s = subscriptionSetup(sim);
    const match = { accountId: s.accountId };
    const run = () => s.upstream.generateImage(generateJob(), callOptions());

    sim.faults.add({ kind: 'refusal', match });
    expect((await failureOf(run())).kind).toBe('refused');

    sim.faults.add({ kind: 'no_image', match });
    expect((await failureOf(run())).kind).toBe('no_image');

    sim.faults.add({ kind: 'usage_limit', resetsInSeconds: 600, match });
    const limited = await failureOf(run());
    expect(limited.kind).toBe('usage_limit');
    const resetAt = limited.kind === 'usage_limit' ? limited.resetAt! : 0;
    expect(Math.abs(resetAt - (Date.now() + 600_000))).toBeLessThan(5_000);

    sim.faults.add({ kind: 'http_error', status: 400, code: 'model_not_available', match });
    expect(await failureOf(run())).toMatchObject({
      kind: 'http',
      status: 400,
      code: 'model_not_available',
    });
    expect(s.forced).toBe(0);
  });
});

describe('subscription adapter: upstream 401', () => {
  it('refreshes the token once and repeats the call', async () => {
    const s = subscriptionSetup(sim);
    sim.revoke(s.accessToken);
    const outcome = await s.upstream.generateImage(generateJob(), callOptions());
    expect(outcome.b64.length).toBeGreaterThan(0);
    expect(s.forced).toBe(1);
    const [rejected, repeated] = s.sent;
    expect(rejected!.headers.authorization).toBe(`Bearer ${s.accessToken}`);
    expect(repeated!.headers.authorization).not.toBe(rejected!.headers.authorization);
    const calls = sim.calls.filter((c) => c.accountId === s.accountId);
    expect(calls.map((c) => `${c.kind} ${c.status}`)).toEqual([
      'native.generate 401',
      'oauth.token 200',
      'native.generate 200',
    ]);
    expect(s.failures).toEqual([]);
  });

  it('gives up after one forced refresh when the new token is rejected too', async () => {
    // Every token this simulator issues is already expired.
    const expired = await startSimulator({ speed: 0, accessTokenTtlSeconds: 0 });
    try {
      const s = subscriptionSetup(expired);
      const failure = await failureOf(s.upstream.generateImage(generateJob(), callOptions()));
      expect(failure.kind).toBe('unauthorized');
      expect(failure.message).toMatch(/expired/);
      expect(s.forced).toBe(1);
      expect(expired.calls.filter((c) => c.kind === 'native.generate')).toHaveLength(2);
    } finally {
      await expired.close();
    }
  });

  it('surfaces a permanent refresh failure as unauthorized and reports it', async () => {
    const s = subscriptionSetup(sim);
    sim.revoke(s.accessToken);
    sim.faults.add({
      kind: 'http_error',
      status: 401,
      code: 'refresh_token_invalidated',
      match: { path: '/oauth/token' },
    });
    const failure = await failureOf(s.upstream.generateImage(generateJob(), callOptions()));
    expect(failure.kind).toBe('unauthorized');
    expect(s.failures).toHaveLength(1);
    expect(s.failures[0]).toMatch(/revoked/);
  });
});
