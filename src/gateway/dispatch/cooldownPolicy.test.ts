import { describe, expect, it } from 'vitest';
import type { UpstreamFailure } from '../core/upstreamError';
import { DEFAULT_COOLDOWNS, judgeFailure, OutageTracker } from './cooldownPolicy';

const http503: UpstreamFailure = {
  kind: 'http',
  status: 503,
  code: null,
  message: 'overloaded',
  param: null,
  type: null,
};

describe('outage evidence', () => {
  it('counts different requests, not calls: one request retrying is one piece of evidence', () => {
    const outages = new OutageTracker();
    for (let i = 0; i < 5; i++)
      expect(outages.note('a', 'req-1', 1_000 + i)).toEqual({ requests: 1 });
    expect(outages.note('a', 'req-2', 2_000)).toEqual({ requests: 2 });
    expect(outages.note('b', 'req-2', 2_000)).toEqual({ requests: 1 });
  });

  it('forgets failures older than the window, and all of them after a success', () => {
    const outages = new OutageTracker();
    outages.note('a', 'req-1', 0);
    outages.note('a', 'req-2', 1_000);
    expect(outages.note('a', 'req-3', DEFAULT_COOLDOWNS.outageWindowMs + 500)).toEqual({
      requests: 2,
    });
    outages.reset('a');
    expect(outages.note('a', 'req-4', 70_000)).toEqual({ requests: 1 });
  });

  it('rests an account for outages only with evidence from three requests, briefly', () => {
    expect(judgeFailure(http503, { requests: 2 }, 0)).toEqual({ action: 'none' });
    const verdict = judgeFailure(http503, { requests: 3 }, 0);
    expect(verdict).toMatchObject({ action: 'cooldown', kind: 'outage', untilMs: 15_000 });
    const timeout = judgeFailure({ kind: 'timeout', message: 'slow' }, { requests: 3 }, 0);
    expect(timeout).toMatchObject({ action: 'cooldown', kind: 'outage' });
  });

  it('never rests an account for a deterministic answer, whatever the evidence', () => {
    expect(judgeFailure({ ...http503, status: 400 }, { requests: 9 }, 0)).toEqual({
      action: 'none',
    });
    expect(judgeFailure({ kind: 'no_image', message: 'none' }, { requests: 9 }, 0)).toEqual({
      action: 'none',
    });
  });

  it('keeps the usage window and rate limit kinds apart', () => {
    expect(
      judgeFailure(
        { kind: 'usage_limit', resetAt: 60_000, message: 'used up' },
        { requests: 0 },
        0,
      ),
    ).toMatchObject({ kind: 'usage_limit', untilMs: 60_000 });
    expect(
      judgeFailure(
        { kind: 'rate_limited', retryAfterMs: 2_000, message: 'slow down' },
        { requests: 0 },
        0,
      ),
    ).toMatchObject({ kind: 'rate_limit', untilMs: 2_000 });
  });
});
