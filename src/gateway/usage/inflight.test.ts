import { describe, expect, it } from 'vitest';
import { createInflight } from './inflight';

describe('inflight', () => {
  it('tells every waiter when the last request ends, and answers at once when none is running', async () => {
    const inflight = createInflight();
    await inflight.whenIdle();
    const a = inflight.begin();
    const b = inflight.begin();
    const woken: string[] = [];
    const first = inflight.whenIdle().then(() => woken.push('first'));
    const second = inflight.whenIdle().then(() => woken.push('second'));
    a.end();
    await Promise.resolve();
    expect(woken).toEqual([]);
    expect(inflight.size).toBe(1);
    b.end();
    await Promise.all([first, second]);
    expect(woken.sort()).toEqual(['first', 'second']);
  });

  it('drains: waits for requests within the grace period, then aborts the rest', async () => {
    const inflight = createInflight();
    const quick = inflight.begin();
    const drained = inflight.drain(1_000);
    quick.end();
    await drained;
    const stuck = inflight.begin();
    stuck.signal.addEventListener('abort', () => stuck.end());
    await inflight.drain(10);
    expect(stuck.signal.aborted).toBe(true);
    expect(inflight.size).toBe(0);
  });
});
