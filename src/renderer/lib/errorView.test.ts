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

describe('errorView: refusals by a limit say which limit, by its code', () => {
  const monthEnd = new Date(2026, 11, 1, 0, 0, 0).getTime();
  const limited = (code: string, limit: GatewayErrorInfo['limit']) =>
    errorView(error({ status: 429, code, type: 'rate_limit_error', limit }), NOW);

  it('the studio budget used up: used of what, Settings, the reset day, no Retry', () => {
    const view = limited('budget_exceeded', {
      name: 'budget',
      period: 'month',
      unit: 'usd',
      limit: 1.9,
      used: 1.74 + 0.16,
      requested: 0.04,
      resets_at: new Date(monthEnd).toISOString(),
    });
    expect(view).toMatchObject({ kind: 'budget', retry: 'never' });
    expect(view.title).toBe('This month’s studio budget is used: $1.90 of $1.90.');
    expect(view.advice).toBe('Raise it in Settings, or wait until 1 December.');
    expect(view.action).toEqual({ label: 'Open Settings', path: '/settings' });
    expect(`${view.title} ${view.advice}`).not.toMatch(/busy|retry/i);
  });

  it('a request that would pass the budget says so, with its estimate', () => {
    const view = limited('budget_exceeded', {
      name: 'budget',
      period: 'day',
      unit: 'usd',
      limit: 1.9,
      used: 1.74,
      requested: 0.2,
      resets_at: new Date(2026, 10, 25, 0, 0).toISOString(),
    });
    expect(view.title).toBe(
      'This request would pass today’s studio budget: $1.74 of $1.90 used, this one about $0.20.',
    );
    expect(view.advice).toBe(
      'Ask for fewer or cheaper images, raise it in Settings, or wait until tomorrow.',
    );
    const total = limited('budget_exceeded', {
      name: 'budget',
      period: 'total',
      unit: 'usd',
      limit: 0.01,
      used: 0.012,
      requested: 0.008,
      resets_at: null,
    });
    expect(total.title).toBe('The studio budget is used: $0.0120 of $0.0100.');
    expect(total.advice).toBe('Raise it in Settings.');
  });

  it('requests per minute: Retry comes back at the reset; images per day: none today', () => {
    const rpm = limited('rate_limit_exceeded', {
      name: 'requests_per_minute',
      period: 'minute',
      unit: 'requests',
      limit: 2,
      used: 2,
      requested: 1,
      resets_at: new Date(NOW + 40_000).toISOString(),
    });
    expect(rpm).toMatchObject({ kind: 'rate', retry: 'later', retryAt: NOW + 40_000 });
    expect(rpm.title).toBe('Too many requests this minute: 2 of 2.');
    expect(rpm.advice).toContain('13:57 (in 40 s)');
    expect(rpm.action?.path).toBe('/keys');
    const daily = limited('rate_limit_exceeded', {
      name: 'images_per_day',
      period: 'day',
      unit: 'images',
      limit: 3,
      used: 2,
      requested: 2,
      resets_at: new Date(2026, 10, 25, 1, 0).toISOString(),
    });
    expect(daily).toMatchObject({ kind: 'daily', retry: 'never' });
    expect(daily.title).toBe('Today’s images are used: 2 of 3, and this request asks for 2.');
    expect(daily.advice).toBe(
      'Raise the images per day on the Keys page, or wait until tomorrow, 01:00.',
    );
  });

  it('the upstream rate limiting (no limit object) is busy; a usage limit points to Accounts', () => {
    expect(limited('rate_limit_exceeded', null)).toMatchObject({ kind: 'busy', retry: 'now' });
    expect(limited('concurrency_limit_exceeded', null)).toMatchObject({ kind: 'concurrency' });
    expect(
      errorView(error({ status: 429, code: 'usage_limit_reached', message: 'x' }), NOW).action,
    ).toEqual({ label: 'Open Accounts', path: '/accounts' });
  });
});

describe('localMoment', () => {
  it('says the time today, the date on another day, and how long until then', () => {
    expect(localMoment(NOW + 3_600_000, NOW)).toBe('14:57, in 1 h');
    expect(localMoment(NOW + 86_400_000, NOW)).toBe('2026-11-25 13:57, in 1 d');
    expect(localMoment(NOW - 60_000, NOW)).toBe('13:56');
  });
});
