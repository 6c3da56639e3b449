import { describe, expect, it } from 'vitest';
import { createEditStore, type ReferenceImage } from './edit';

function harness() {
  const live = new Set<string>();
  let n = 0;
  const store = createEditStore({
    createUrl: () => {
      const url = `blob:${++n}`;
      live.add(url);
      return url;
    },
    revokeUrl: (url) => live.delete(url),
  });
  const ref = (id: string): ReferenceImage => {
    const url = `blob:ref-${id}`;
    live.add(url);
    return {
      id,
      name: `${id}.png`,
      blob: new Blob([id]),
      url,
      width: 8,
      height: 8,
      format: 'png',
      galleryId: null,
    };
  };
  return { store, live, ref };
}

describe('edit store references', () => {
  it('caps the list at 16 images and revokes the ones left out', () => {
    const { store, live, ref } = harness();
    const many = Array.from({ length: 18 }, (_, i) => ref(`r${i}`));
    expect(store.getState().addReferences(many)).toBe(2);
    expect(store.getState().references).toHaveLength(16);
    expect(live.has('blob:ref-r17')).toBe(false);
    expect(live.has('blob:ref-r0')).toBe(true);
  });

  it('reorders and removes, and the first image is the one masked', () => {
    const { store, live, ref } = harness();
    store.getState().addReferences([ref('a'), ref('b'), ref('c')]);
    store.getState().moveReference('c', 0);
    expect(store.getState().references.map((r) => r.id)).toEqual(['c', 'a', 'b']);
    store.getState().removeReference('a');
    expect(store.getState().references.map((r) => r.id)).toEqual(['c', 'b']);
    expect(live.has('blob:ref-a')).toBe(false);
  });

  it('grows the edit chain with each result edited, and branches from an earlier step', () => {
    const { store, ref } = harness();
    store.getState().addReferences([ref('source'), ref('style')]);
    store.getState().continueWith(ref('result1'), 'make it night');
    store.getState().continueWith(ref('result2'), 'add stars');
    const chain = store.getState().chain;
    expect(chain.map((s) => [s.name, s.prompt])).toEqual([
      ['source.png', null],
      ['result1.png', 'make it night'],
      ['result2.png', 'add stars'],
    ]);
    // The style reference stays second throughout.
    expect(store.getState().references.map((r) => r.name)).toEqual(['result2.png', 'style.png']);
    store.getState().branchFrom(chain[1]!.id);
    expect(store.getState().chain).toHaveLength(2);
    expect(store.getState().references[0]?.name).toBe('result1.png');
  });

  it('starts a new chain when the first image is changed by hand', () => {
    const { store, ref } = harness();
    store.getState().addReferences([ref('a')]);
    store.getState().continueWith(ref('b'), 'p');
    expect(store.getState().chain).toHaveLength(2);
    store.getState().addReferences([ref('c')], 'start');
    expect(store.getState().chain).toEqual([]);
  });
});
