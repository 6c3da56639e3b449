import { describe, expect, it } from 'vitest';
import { createTaskQueue } from './queue';

describe('createTaskQueue', () => {
  it('runs at most `concurrency` tasks at once, in order, and drains', async () => {
    const queue = createTaskQueue(2, () => undefined);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      queue.push(async () => {
        started.push(i);
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running -= 1;
      });
    }
    await queue.drain();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(queue.pending).toBe(0);
  });

  it('reports a failed task and goes on', async () => {
    const errors: unknown[] = [];
    const queue = createTaskQueue(1, (e) => errors.push(e));
    const done: string[] = [];
    queue.push(() => Promise.reject(new Error('disk full')));
    queue.push(async () => {
      done.push('next');
    });
    await queue.drain();
    expect(errors).toHaveLength(1);
    expect(done).toEqual(['next']);
  });

  it('drains at once when idle', async () => {
    await createTaskQueue(1, () => undefined).drain();
  });
});
