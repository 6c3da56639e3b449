import { describe, expect, it } from 'vitest';
import { boundWork } from './editWorkState';

const image = (name: string, bytes: number) => ({ name, blob: new Blob([new Uint8Array(bytes)]) });

describe('boundWork (what Edit keeps across a reload)', () => {
  it('keeps everything within the bounds', () => {
    const refs = [image('a', 10), image('b', 10)];
    const chain = [image('s0', 10), image('s1', 10)];
    expect(boundWork(refs, chain, 12, 1000)).toEqual({ references: refs, chain });
  });

  it('keeps the first step and the latest ones beyond the step bound', () => {
    const chain = Array.from({ length: 20 }, (_, i) => image(`s${i}`, 1));
    const kept = boundWork([image('a', 1)], chain, 5, 1000).chain.map((s) => s.name);
    expect(kept).toEqual(['s0', 's16', 's17', 's18', 's19']);
  });

  it('drops middle steps, then later references, to fit the byte bound; the first image stays', () => {
    const first = image('first', 100);
    const refs = [first, image('style1', 100), image('style2', 100)];
    const chain = [image('s0', 100), image('s1', 100), { name: 'now', blob: first.blob }];
    const fit = boundWork(refs, chain, 12, 450);
    // A blob shared by a reference and a step counts once.
    expect(fit.chain.map((s) => s.name)).toEqual(['s0', 'now']);
    expect(fit.references.map((r) => r.name)).toEqual(['first', 'style1', 'style2']);
    const tight = boundWork(refs, chain, 12, 250);
    expect(tight.references.map((r) => r.name)).toEqual(['first']);
    expect(tight.chain.map((s) => s.name)).toEqual(['s0', 'now']);
    const tiny = boundWork(refs, chain, 12, 50);
    expect(tiny).toEqual({ references: [first], chain: [] });
  });
});
