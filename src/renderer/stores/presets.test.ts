import { describe, expect, it } from 'vitest';
import { EMPTY_DRAFT } from '../features/generate/composePrompt';
import { DEFAULT_PARAMS } from '../features/generate/params';
import { createPresetsStore, parsePresets } from './presets';

describe('presets', () => {
  it('saves by name, replacing a preset of the same name, sorted by name', () => {
    const store = createPresetsStore('test.presets', () => 1);
    store.getState().save('Watercolour', { ...EMPTY_DRAFT, style: 'watercolour' }, DEFAULT_PARAMS);
    store.getState().save('Draft', EMPTY_DRAFT, { ...DEFAULT_PARAMS, quality: 'low' });
    const again = store
      .getState()
      .save(' Watercolour ', { ...EMPTY_DRAFT, style: 'gouache' }, DEFAULT_PARAMS);
    const { presets } = store.getState();
    expect(presets.map((p) => p.name)).toEqual(['Draft', 'Watercolour']);
    expect(presets[1]).toEqual(again);
    expect(presets[1]?.draft.style).toBe('gouache');
    store.getState().remove(again.id);
    expect(store.getState().presets.map((p) => p.name)).toEqual(['Draft']);
  });

  it('reads stored presets defensively', () => {
    expect(parsePresets('nope')).toEqual([]);
    const [preset] = parsePresets([
      { id: 'a', name: 'Old', draft: { text: 'x' }, params: { n: 99, background: 'transparent' } },
      { id: 'b', name: '' },
      null,
    ]);
    expect(preset?.draft.text).toBe('x');
    expect(preset?.params).toEqual(DEFAULT_PARAMS);
  });
});
