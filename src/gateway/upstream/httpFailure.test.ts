import { describe, expect, it } from 'vitest';
import { failureFromResponse, resetAtFrom } from './httpFailure';

const now = 1_800_000_000_000;

describe('resetAtFrom', () => {
  it("prefers the body's reset for the limit that was hit", () => {
    const headers = {
      'x-codex-secondary-used-percent': '25',
      'x-codex-secondary-reset-after-seconds': '86520',
      'retry-after': '9',
    };
    expect(resetAtFrom(headers, { resets_in_seconds: 120 }, now)).toBe(now + 120_000);
    expect(resetAtFrom(headers, { resets_at: now / 1000 + 300 }, now)).toBe(now + 300_000);
  });

  it('uses only the usage windows that are used up', () => {
    const headers = {
      'x-codex-primary-used-percent': '100',
      'x-codex-primary-reset-after-seconds': '600',
      'x-codex-secondary-used-percent': '40',
      'x-codex-secondary-reset-after-seconds': '90000',
    };
    expect(resetAtFrom(headers, null, now)).toBe(now + 600_000);
  });

  it('falls back to retry-after, in seconds or as a date', () => {
    expect(resetAtFrom({ 'retry-after': '30' }, null, now)).toBe(now + 30_000);
    const date = new Date(now + 90_000).toUTCString();
    expect(resetAtFrom({ 'retry-after': date }, null, now)).toBe(
      Math.floor((now + 90_000) / 1000) * 1000,
    );
    expect(resetAtFrom({}, null, now)).toBeNull();
  });
});

describe('failureFromResponse', () => {
  it('tells a usage window apart from plain rate limiting', () => {
    const usage = failureFromResponse(
      429,
      {},
      JSON.stringify({ error: { type: 'usage_limit_reached', resets_in_seconds: 5 } }),
      now,
    );
    expect(usage.failure).toMatchObject({ kind: 'usage_limit', resetAt: now + 5000 });
    const rate = failureFromResponse(
      429,
      { 'retry-after': '2' },
      JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'slow down' } }),
      now,
    );
    expect(rate.failure).toMatchObject({ kind: 'rate_limited', retryAfterMs: 2000 });
  });

  it('keeps a deterministic 400 with its param, and a refusal as a refusal', () => {
    const bad = failureFromResponse(
      400,
      {},
      JSON.stringify({
        error: {
          message: 'bad size',
          param: 'size',
          code: 'invalid_value',
          type: 'invalid_request_error',
        },
      }),
      now,
    );
    expect(bad.failure).toMatchObject({ kind: 'http', status: 400, param: 'size' });
    const refused = failureFromResponse(
      400,
      {},
      JSON.stringify({
        error: { code: 'moderation_blocked', type: 'image_generation_user_error', message: 'no' },
      }),
      now,
    );
    expect(refused.failure.kind).toBe('refused');
  });

  it('survives a non-JSON error body', () => {
    expect(failureFromResponse(502, {}, '<html>bad gateway</html>', now).failure).toMatchObject({
      kind: 'http',
      status: 502,
    });
  });
});
