import { afterEach, describe, expect, it, vi } from 'vitest';
import { EMPTY_DRAFT } from '../features/generate/composePrompt';
import { checkParams, DEFAULT_PARAMS } from '../features/generate/params';
import { STARTER_PRESETS } from '../features/generate/starterPresets';
import { createPresetsStore, menuPresets, parsePresets } from './presets';

describe('presets', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

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

  it('lists own presets first, then the starters, marked, each with valid parameters', () => {
    const store = createPresetsStore('test.presets.menu', () => 1);
    store.getState().save('Mine', EMPTY_DRAFT, DEFAULT_PARAMS);
    const menu = menuPresets(store.getState());
    expect(menu.map((p) => [p.name, p.starter])).toEqual([
      ['Mine', false],
      ...STARTER_PRESETS.map((s) => [s.name, true]),
    ]);
    expect(STARTER_PRESETS.length).toBeGreaterThanOrEqual(4);
    for (const s of STARTER_PRESETS) {
      expect(checkParams(s.params).issues, s.name).toEqual({});
      expect(new Set(STARTER_PRESETS.map((x) => x.id)).size).toBe(STARTER_PRESETS.length);
    }
  });

  it('undoes a delete, and hides a starter (remembered) until undone or shown again', () => {
    const key = 'test.presets.undo';
    // Node has no localStorage; a Map stands in so a second store can read what the first wrote.
    const stored = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => stored.get(k) ?? null,
      setItem: (k: string, v: string) => stored.set(k, v),
    });
    const store = createPresetsStore(key, () => 2);
    const own = store
      .getState()
      .save('Night city', { ...EMPTY_DRAFT, text: 'neon' }, DEFAULT_PARAMS);
    const removed = store.getState().remove(own.id);
    expect(removed).toEqual({ kind: 'own', preset: own });
    expect(store.getState().presets).toEqual([]);
    store.getState().restore(removed!);
    expect(store.getState().presets).toEqual([own]);

    const starter = STARTER_PRESETS[1]!;
    const hidden = store.getState().remove(starter.id);
    expect(hidden?.kind).toBe('starter');
    expect(menuPresets(store.getState()).some((p) => p.id === starter.id)).toBe(false);
    // A new store on the same storage (a reload) keeps it hidden.
    const reloaded = createPresetsStore(key, () => 3);
    expect(reloaded.getState().hiddenStarters).toEqual([starter.id]);
    store.getState().restore(hidden!);
    expect(menuPresets(store.getState()).some((p) => p.id === starter.id)).toBe(true);

    store.getState().remove(STARTER_PRESETS[0]!.id);
    store.getState().remove(STARTER_PRESETS[2]!.id);
    store.getState().showStarters();
    expect(store.getState().hiddenStarters).toEqual([]);
    expect(store.getState().remove('no-such-preset')).toBeNull();
  });

  it('keeps a preset saved under the same name since the delete over the undone one', () => {
    const store = createPresetsStore('test.presets.undo-clash', () => 4);
    const old = store.getState().save('Mood', { ...EMPTY_DRAFT, text: 'old' }, DEFAULT_PARAMS);
    const removed = store.getState().remove(old.id)!;
    store.getState().save('Mood', { ...EMPTY_DRAFT, text: 'new' }, DEFAULT_PARAMS);
    store.getState().restore(removed);
    expect(store.getState().presets.map((p) => p.draft.text)).toEqual(['new']);
  });
});
