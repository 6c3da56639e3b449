import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toGatewayError } from './errors';

const budgetLimit = {
  name: 'budget',
  period: 'month',
  unit: 'usd',
  limit: 1.9,
  used: 1.74,
  requested: 0.2,
  resets_at: '2026-12-01T00:00:00.000Z',
};

describe('toGatewayError', () => {
  it('reads a key limit refusal’s error.limit', () => {
    const error = toGatewayError(
      429,
      {
        error: {
          message: 'Budget exceeded',
          type: 'rate_limit_error',
          param: null,
          code: 'budget_exceeded',
          limit: budgetLimit,
        },
      },
      'fallback',
    );
    expect(error.toInfo()).toMatchObject({ status: 429, code: 'budget_exceeded' });
    expect(error.limit).toEqual(budgetLimit);
  });

  it('a limit in a shape it does not know loses only the limit, never the message or code', () => {
    fc.assert(
      fc.property(fc.anything(), (limit) => {
        const error = toGatewayError(
          429,
          { error: { message: 'Refused', code: 'rate_limit_exceeded', limit } },
          'fallback',
        );
        expect(error.message).toBe('Refused');
        expect(error.code).toBe('rate_limit_exceeded');
        if (error.limit !== null) {
          expect(typeof error.limit.limit).toBe('number');
          expect(typeof error.limit.used).toBe('number');
        }
      }),
    );
  });
});
