import { describe, expect, it } from 'vitest';
import { useMaskStore } from './mask';

describe('mask store: carrying and seeding masks', () => {
  it('carries the painted mask to the next image of the same size, not to another size', () => {
    const mask = useMaskStore.getState();
    mask.attach('first', 4, 2);
    mask.load(new Uint8Array([255, 255, 0, 0, 0, 0, 0, 0]));
    expect(useMaskStore.getState().carryTo('next', 4, 2)).toBe(true);
    expect(useMaskStore.getState().carryTo('other', 2, 4)).toBe(false);

    useMaskStore.getState().attach('next', 4, 2);
    const carried = useMaskStore.getState();
    expect([...carried.doc!.coverage]).toEqual([255, 255, 0, 0, 0, 0, 0, 0]);
    expect(carried.changedShare).toBe(0.25);
    // Its own document: painting the next step leaves the previous step's mask alone.
    expect(carried.canUndo).toBe(false);
    carried.invert();
    useMaskStore.getState().attach('first', 4, 2);
    expect([...useMaskStore.getState().doc!.coverage]).toEqual([255, 255, 0, 0, 0, 0, 0, 0]);

    useMaskStore.getState().attach('other', 2, 4);
    expect(useMaskStore.getState().empty).toBe(true);
  });

  it('asks once about a carried mask: start clean empties it (one undo step), keep leaves it', () => {
    const mask = useMaskStore.getState();
    mask.attach('step-1', 2, 2);
    mask.load(new Uint8Array([255, 255, 0, 0]));
    useMaskStore.getState().carryTo('step-2', 2, 2);
    expect(useMaskStore.getState().carriedTo).toBe('step-2');
    useMaskStore.getState().attach('step-2', 2, 2);
    useMaskStore.getState().settleCarried(false);
    expect(useMaskStore.getState()).toMatchObject({ carriedTo: null, empty: true, canUndo: true });

    useMaskStore.getState().attach('step-1', 2, 2);
    useMaskStore.getState().carryTo('step-3', 2, 2);
    useMaskStore.getState().attach('step-3', 2, 2);
    useMaskStore.getState().settleCarried(true);
    expect(useMaskStore.getState()).toMatchObject({ carriedTo: null, changedShare: 0.5 });
  });

  it('seeds a kept mask for a source, shown at once when that source is attached already', () => {
    useMaskStore.getState().attach('kept', 2, 2);
    useMaskStore.getState().seed('kept', 2, 2, new Uint8Array([0, 255, 0, 0]));
    expect(useMaskStore.getState().changedShare).toBe(0.25);
    // A coverage of the wrong size is ignored.
    useMaskStore.getState().seed('kept', 2, 2, new Uint8Array(3));
    expect(useMaskStore.getState().changedShare).toBe(0.25);
  });
});
