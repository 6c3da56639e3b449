import { describe, expect, it } from 'vitest';
import type { ChainStep } from '../../stores/edit';
import { layerStack, showsTopOnly } from './layers';

const step = (id: string, width: number, height: number, startsStack = false): ChainStep => ({
  id,
  url: `blob:${id}`,
  name: id,
  blob: new Blob([id]),
  width,
  height,
  format: 'png',
  galleryId: null,
  prompt: id,
  ...(startsStack && { startsStack: true }),
});

const ids = (steps: ChainStep[]) => steps.map((s) => s.id);

describe('layerStack', () => {
  it('stacks the latest steps of the working size, from the outpainted canvas on', () => {
    const chain = [
      step('original', 1024, 768),
      step('expanded', 1536, 1024),
      step('a', 1536, 1024),
      step('b', 1536, 1024),
    ];
    expect(ids(layerStack(chain, { width: 1536, height: 1024 }))).toEqual(['expanded', 'a', 'b']);
  });

  it('starts again at a flattened step, and a single step has no layers', () => {
    const chain = [step('a', 8, 8), step('b', 8, 8), step('flat', 8, 8, true), step('c', 8, 8)];
    expect(ids(layerStack(chain, { width: 8, height: 8 }))).toEqual(['flat', 'c']);
    expect(layerStack([step('only', 8, 8)], { width: 8, height: 8 })).toEqual([]);
    expect(layerStack(chain.slice(0, 3), { width: 8, height: 8 })).toEqual([]);
  });

  it('shows only the top while it is visible and opaque', () => {
    const stack = [step('a', 8, 8), step('b', 8, 8)];
    expect(showsTopOnly(stack, {})).toBe(true);
    expect(showsTopOnly(stack, { b: { hidden: false, opacity: 0.5 } })).toBe(false);
    expect(showsTopOnly(stack, { b: { hidden: true, opacity: 1 } })).toBe(false);
    expect(showsTopOnly(stack, { a: { hidden: true, opacity: 1 } })).toBe(true);
  });
});
