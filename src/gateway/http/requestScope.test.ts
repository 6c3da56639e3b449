import { describe, expect, it } from 'vitest';
import { newRequestId } from './requestScope';

describe('newRequestId', () => {
  it('gives distinct ids of 12 random bytes, across refills of its pool', () => {
    // 341 ids per refill: 2,000 cross five refills.
    const ids = Array.from({ length: 2_000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
