import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pollWhileVisible, type VisibilitySource } from './visiblePoll';

/** A stand-in `document` whose visibility the test sets. */
function fakeDocument(initial: DocumentVisibilityState) {
  const listeners = new Set<() => void>();
  const doc = {
    visibilityState: initial,
    addEventListener: (_type: 'visibilitychange', listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: 'visibilitychange', listener: () => void) =>
      listeners.delete(listener),
    set(state: DocumentVisibilityState) {
      doc.visibilityState = state;
      for (const listener of listeners) listener();
    },
    listeners,
  };
  return doc satisfies VisibilitySource;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('pollWhileVisible', () => {
  it('ticks every interval while visible', () => {
    const tick = vi.fn();
    const stop = pollWhileVisible(tick, 1000, fakeDocument('visible'));
    vi.advanceTimersByTime(999);
    expect(tick).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2001);
    expect(tick).toHaveBeenCalledTimes(3);
    stop();
  });

  it('asks nothing while hidden, and at once when shown again', () => {
    const tick = vi.fn();
    const doc = fakeDocument('visible');
    const stop = pollWhileVisible(tick, 1000, doc);
    doc.set('hidden');
    vi.advanceTimersByTime(10_000);
    expect(tick).not.toHaveBeenCalled();
    doc.set('visible');
    expect(tick).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1000);
    expect(tick).toHaveBeenCalledTimes(2);
    stop();
  });

  it('starts hidden without ticking', () => {
    const tick = vi.fn();
    const stop = pollWhileVisible(tick, 1000, fakeDocument('hidden'));
    vi.advanceTimersByTime(5000);
    expect(tick).not.toHaveBeenCalled();
    stop();
  });

  it('stops the timer and the listener', () => {
    const tick = vi.fn();
    const doc = fakeDocument('visible');
    pollWhileVisible(tick, 1000, doc)();
    expect(doc.listeners.size).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(tick).not.toHaveBeenCalled();
  });
});
