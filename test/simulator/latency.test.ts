import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import { imageLatencyMs } from '../../src/simulator/latency';
import { inputImageTokens, outputImageTokens } from '../../src/simulator/tokens';
import { API_KEY, postJson } from './helpers';

describe('latency model', () => {
  it('grows with pixels and quality, scales with speed, and is zero at speed 0', () => {
    expect(imageLatencyMs(1024, 1024, 'low', 0)).toBe(0);
    const low = imageLatencyMs(1024, 1024, 'low', 1);
    const high = imageLatencyMs(1024, 1024, 'high', 1);
    const big = imageLatencyMs(3840, 2160, 'high', 1);
    expect(low).toBeCloseTo(150 + 1.048576 * 150);
    expect(high).toBeGreaterThan(low);
    expect(big).toBeGreaterThan(4 * high);
    expect(imageLatencyMs(1024, 1024, 'auto', 2)).toBe(2 * imageLatencyMs(1024, 1024, 'medium', 1));
  });

  it('delays real responses without blocking other requests, and close() ends in-flight work', async () => {
    const sim = await startSimulator({ speed: 1 });
    const body = { model: 'image-model-2', prompt: 'slowly', size: '1024x1024', quality: 'medium' };
    let imageDone = false;
    const started = performance.now();
    const image = postJson(`${sim.url}/v1/images/generations`, body).then((r) => {
      imageDone = true;
      return r;
    });
    // While the image is "rendering", the event loop still serves other requests.
    const models = await fetch(`${sim.url}/v1/models`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(models.status).toBe(200);
    expect(imageDone).toBe(false);
    expect((await image).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(
      imageLatencyMs(1024, 1024, 'medium', 1) - 5,
    );

    // A 4K high stream takes seconds: its headers arrive at once, then close() must cut it short.
    const stream = await postJson(`${sim.url}/v1/images/generations`, {
      ...body,
      size: '3840x2160',
      quality: 'high',
      stream: true,
      partial_images: 1,
    });
    expect(stream.status).toBe(200);
    const closed = performance.now();
    await sim.close();
    await expect(stream.text()).rejects.toThrow();
    expect(performance.now() - closed).toBeLessThan(2000);
  });
});

describe('token tables', () => {
  it('follows the published 1024-class table and the 512 px tile rule', () => {
    expect(outputImageTokens('low', 1024, 1024)).toBe(272);
    expect(outputImageTokens('medium', 1024, 1536)).toBe(1584);
    expect(outputImageTokens('high', 1536, 1024)).toBe(6208);
    expect(outputImageTokens('high', 2048, 2048)).toBe(4 * 4160);
    expect(inputImageTokens(512, 512)).toBe(65 + 129);
    expect(inputImageTokens(2048, 1024)).toBe(65 + 2 * 129);
    expect(inputImageTokens(1000, 3000)).toBe(65 + 3 * 129);
  });
});
