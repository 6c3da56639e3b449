import { describe, expect, it } from 'vitest';
import { errorView, localMoment } from './errorView';
import type { GatewayErrorInfo } from './api/errors';

const NOW = new Date(2026, 10, 24, 13, 57, 0).getTime();
const error = (over: Partial<GatewayErrorInfo>): GatewayErrorInfo => ({
  status: 500,
  message: 'something',
  param: null,
  code: null,
  type: null,
  requestId: null,
  ...over,
});

describe('errorView', () => {
  it('a refusal says one thing, in plain words, and offers no Retry', () => {
    const view = errorView(
      error({
        status: 502,
        code: 'upstream_refused',
        message:
          'the upstream refused the content: blocked. Simplify the prompt; retrying unchanged will not help.',
      }),
      NOW,
    );
    expect(view).toMatchObject({ kind: 'refused', retry: 'never' });
    expect(view.message).toBe('the upstream refused the content: blocked.');
    expect(`${view.title} ${view.message} ${view.advice}`).not.toMatch(/retrying may help/i);
    expect(errorView(error({ status: 400, code: 'moderation_blocked' }), NOW).retry).toBe('never');
  });

  it('a usage limit gives the reset in local time with what is left, and Retry only after it', () => {
    const reset = NOW + 12 * 60_000 + 13_000;
    const iso = new Date(reset).toISOString();
    const view = errorView(
      error({
        status: 429,
        code: 'usage_limit_reached',
        message: `The upstream account hit its usage window. It resets at ${iso}.`,
      }),
      NOW,
    );
    expect(view.kind).toBe('limit');
    expect(view.message).not.toContain(iso);
    expect(view.message).toContain('resets at 14:09, in 12 min 13 s');
    expect(view.advice).toContain('Retry comes back');
    expect(view).toMatchObject({ retry: 'later', retryAt: Date.parse(iso) });
    // Once the window has reset, a Retry can work.
    expect(
      errorView(error({ status: 429, code: 'usage_limit_reached', message: `x ${iso}` }), reset + 1)
        .retry,
    ).toBe('now');
  });

  it('a stream that failed is named by what failed, not by the transport', () => {
    const view = errorView(
      error({ status: 0, code: 'upstream_timeout', message: 'timed out' }),
      NOW,
    );
    expect(view).toMatchObject({
      kind: 'upstream',
      title: 'The image could not be made',
      retry: 'now',
    });
    expect(errorView(error({ status: 0, message: 'no answer' }), NOW)).toMatchObject({
      kind: 'offline',
      retry: 'now',
    });
  });

  it('an upstream that could not be reached points at the account, not at the size (issue 22)', () => {
    const view = errorView(
      error({
        status: 502,
        code: 'upstream_network_error',
        message: 'network failure talking to the upstream (ECONNREFUSED: connect ECONNREFUSED)',
      }),
      NOW,
    );
    expect(view).toMatchObject({ kind: 'upstream', retry: 'now' });
    expect(view.advice).toMatch(/Accounts page/);
    expect(view.advice).not.toMatch(/size|quality/);
    expect(
      errorView(error({ status: 502, code: 'upstream_timeout', message: 'slow' }), NOW).advice,
    ).toMatch(/lower the size or quality/);
  });

  it('a parameter refusal names the parameter and does not offer to send it unchanged', () => {
    const view = errorView(error({ status: 400, code: 'invalid_size', param: 'size' }), NOW);
    expect(view).toMatchObject({ kind: 'invalid', retry: 'never' });
    expect(view.advice).toBe('Change size, then send again.');
  });

  it('no usable account points to the Accounts page', () => {
    expect(errorView(error({ status: 503, code: 'no_account_available' }), NOW)).toMatchObject({
      kind: 'no_account',
      retry: 'never',
    });
  });
});

describe('localMoment', () => {
  it('says the time today, the date on another day, and how long until then', () => {
    expect(localMoment(NOW + 3_600_000, NOW)).toBe('14:57, in 1 h');
    expect(localMoment(NOW + 86_400_000, NOW)).toBe('2026-11-25 13:57, in 1 d');
    expect(localMoment(NOW - 60_000, NOW)).toBe('13:56');
  });
});
