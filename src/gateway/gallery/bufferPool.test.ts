import { describe, expect, it } from 'vitest';
import { giveBack, takeBuffer } from './bufferPool';
import { isPageAligned } from './uncachedFile';

describe('the gallery buffer pool', () => {
  it('hands out page-aligned megabytes first, then plain ones, and takes both back', () => {
    const taken = Array.from({ length: 40 }, () => takeBuffer());
    for (const buffer of taken) expect(buffer.length).toBe(1024 * 1024);
    // The first 32 are carved from page-aligned memory, the rest are plain.
    expect(taken.slice(0, 32).every(isPageAligned)).toBe(true);
    expect(taken.slice(32).some(isPageAligned)).toBe(false);
    // No two overlap: a byte written through one shows in no other.
    taken.forEach((buffer, i) => buffer.fill(i));
    taken.forEach((buffer, i) =>
      expect(buffer[0] === i && buffer[buffer.length - 1] === i).toBe(true),
    );
    for (const buffer of taken) giveBack(buffer);
    // Given back, the aligned ones come out again before any plain one.
    const again = Array.from({ length: 32 }, () => takeBuffer());
    expect(new Set(again)).toEqual(new Set(taken.slice(0, 32)));
    for (const buffer of again) giveBack(buffer);
  });
});
