import { describe, expect, it } from 'vitest';
import { checkDimensions } from '../../../shared/sizeRules';
import { nearestValidSize, sizeChecklist, sizeFailures } from './sizeChecklist';

describe('sizeChecklist', () => {
  it('names every rule of spec 8.1 that fails, not only the first', () => {
    // 4000 is too long; 333 is off the grid; 4000:333 is over 3:1. The pixel count is fine.
    const failures = sizeFailures(4000, 333)!;
    expect(failures.rules).toEqual(['max_edge', 'multiple_of_16', 'aspect_ratio']);
    expect(failures.message).toBe(
      'size 4000x333: each edge must be at most 3840 px; ' +
        'width and height must each be a multiple of 16 px; ' +
        'long edge to short edge must be at most 3:1',
    );
    expect(sizeFailures(500, 500)!.rules).toEqual(['multiple_of_16', 'min_pixels']);
    expect(sizeFailures(3840, 3840)!.rules).toEqual(['max_pixels']);
  });

  it('shows each row passing or failing, with the pixel count', () => {
    const rows = sizeChecklist(1536, 864);
    expect(rows.map((r) => [r.row, r.ok])).toEqual([
      ['max_edge', true],
      ['multiple_of_16', true],
      ['aspect_ratio', true],
      ['pixels', true],
    ]);
    expect(rows[3]!.label).toContain('now 1,327,104');
    expect(sizeFailures(1536, 864)).toBeNull();
  });

  it('agrees with the shared rule check on the first failing rule and its words', () => {
    for (const w of [0, 16, 333, 512, 1000, 1024, 2000, 3072, 3840, 3856, 5000]) {
      for (const h of [16, 256, 512, 1008, 1024, 2160, 2176, 3840, 4000]) {
        const shared = checkDimensions(w, h);
        const ours = sizeFailures(w, h);
        expect(ours?.rules[0] ?? null, `${w}x${h}`).toBe(shared?.rule ?? null);
        if (shared && ours?.rules.length === 1) expect(ours.message).toBe(shared.message);
      }
    }
  });
});

describe('nearestValidSize', () => {
  it.each([
    [1000, 1000, 1008, 1008],
    [1920, 1080, 1920, 1088],
    [512, 512, 816, 816],
    [4096, 4096, 2880, 2880],
    [6000, 1000, 3840, 1280],
  ])('%ix%i -> %ix%i', (w, h, ew, eh) => {
    const near = nearestValidSize(w, h)!;
    expect(near).toEqual({ width: ew, height: eh });
    expect(checkDimensions(near.width, near.height)).toBeNull();
  });

  it('always lands on a valid size for any positive input', () => {
    for (let w = 16; w <= 9000; w += 419) {
      for (let h = 16; h <= 9000; h += 389) {
        const near = nearestValidSize(w, h);
        expect(near, `${w}x${h}`).not.toBeNull();
        expect(checkDimensions(near!.width, near!.height), `${w}x${h}`).toBeNull();
      }
    }
    expect(nearestValidSize(0, 100)).toBeNull();
  });
});
