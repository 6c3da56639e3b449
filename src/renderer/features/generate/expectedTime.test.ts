import { describe, expect, it } from 'vitest';
import { expectedLatency } from './expectedTime';

const rec = (size: string, quality: string | null, latencyMs: number, status = 200) => ({
  size,
  quality,
  latencyMs,
  status,
});

describe('expectedLatency', () => {
  it('is the median of successful requests of the same size and quality', () => {
    const records = [
      rec('1024x1024', 'high', 30_000),
      rec('1024x1024', 'high', 10_000),
      rec('1024x1024', 'high', 20_000),
      rec('1024x1024', 'low', 2_000),
      rec('1536x1024', 'high', 60_000),
      rec('1024x1024', 'high', 500, 429),
    ];
    expect(expectedLatency(records, '1024x1024', 'high')).toEqual({ ms: 20_000, basis: 3 });
    expect(expectedLatency(records, '1024x1024', 'low')).toEqual({ ms: 2_000, basis: 1 });
  });

  it('averages the middle two of an even count, and knows nothing without history', () => {
    const records = [rec('1024x1024', 'low', 1_000), rec('1024x1024', 'low', 3_000)];
    expect(expectedLatency(records, '1024x1024', 'low')).toEqual({ ms: 2_000, basis: 2 });
    expect(expectedLatency(records, '1024x1536', 'low')).toBeNull();
  });
});
