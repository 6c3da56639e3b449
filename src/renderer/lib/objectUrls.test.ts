import { afterEach, describe, expect, it, vi } from 'vitest';
import { createObjectUrl, retireObjectUrl } from './objectUrls';

describe('object URLs', () => {
  afterEach(() => vi.useRealTimers());

  it('a retired URL stays loadable for the grace period, then is revoked', () => {
    vi.useFakeTimers();
    const revoke = vi.spyOn(URL, 'revokeObjectURL');
    const url = createObjectUrl(new Blob(['x'], { type: 'text/plain' }));
    retireObjectUrl(url, 1_000);
    vi.advanceTimersByTime(999);
    expect(revoke).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(revoke).toHaveBeenCalledWith(url);
    revoke.mockRestore();
  });
});
