import { describe, expect, it } from 'vitest';
import { createRejectedCounter } from './rejected';

describe('rejected counter', () => {
  it('counts per minute, keeps the last hour only, and the total since start', () => {
    let clock = Date.UTC(2026, 0, 1, 12, 0, 30);
    const counter = createRejectedCounter(() => clock);
    counter.note();
    counter.note();
    clock += 60_000;
    counter.note();
    expect(counter.snapshot().perMinute).toEqual([
      { minute: Date.UTC(2026, 0, 1, 12, 0), count: 2 },
      { minute: Date.UTC(2026, 0, 1, 12, 1), count: 1 },
    ]);
    clock += 60 * 60_000;
    counter.note();
    expect(counter.snapshot()).toEqual({
      since: Date.UTC(2026, 0, 1, 12, 0, 30),
      total: 4,
      perMinute: [{ minute: Date.UTC(2026, 0, 1, 13, 1), count: 1 }],
    });
  });
});
