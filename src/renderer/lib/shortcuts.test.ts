import { describe, expect, it } from 'vitest';
import {
  formatCombo,
  ShortcutMatcher,
  SHORTCUTS,
  type KeyLike,
  type ShortcutId,
} from './shortcuts';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

const all = new Set<ShortcutId>(SHORTCUTS.map((s) => s.id));

describe('ShortcutMatcher', () => {
  it('matches plain keys, brackets and the help key', () => {
    const m = new ShortcutMatcher(all);
    expect(m.match(key('b'), false)).toBe('brush');
    expect(m.match(key('E', { shiftKey: true }), false)).toBeNull();
    expect(m.match(key('['), false)).toBe('brushSmaller');
    expect(m.match(key(']'), false)).toBe('brushLarger');
    expect(m.match(key('?', { shiftKey: true }), false)).toBe('help');
    expect(m.match(key('+', { shiftKey: true }), false)).toBe('zoomIn');
  });

  it('takes Ctrl or Cmd as mod, and tells undo from redo by Shift', () => {
    const m = new ShortcutMatcher(all);
    expect(m.match(key('z', { ctrlKey: true }), false)).toBe('undo');
    expect(m.match(key('z', { metaKey: true }), false)).toBe('undo');
    expect(m.match(key('Z', { ctrlKey: true, shiftKey: true }), false)).toBe('redo');
    expect(m.match(key('y', { ctrlKey: true }), false)).toBe('redo');
    expect(m.match(key('Enter', { metaKey: true }), false)).toBe('send');
    expect(m.match(key('b', { ctrlKey: true }), false)).toBeNull();
  });

  it('leaves plain keys to text fields but not Ctrl+Enter', () => {
    const m = new ShortcutMatcher(all);
    expect(m.match(key('b'), true)).toBeNull();
    expect(m.match(key('z', { ctrlKey: true }), true)).toBeNull();
    expect(m.match(key('Enter', { ctrlKey: true }), true)).toBe('send');
  });

  it('cancels a run with Escape, from a text field too', () => {
    const m = new ShortcutMatcher(all);
    expect(m.match(key('Escape'), false)).toBe('cancel');
    expect(m.match(key('Escape'), true)).toBe('cancel');
    expect(m.match(key('Escape', { ctrlKey: true }), false)).toBeNull();
  });

  it('only matches shortcuts that have a handler', () => {
    const m = new ShortcutMatcher(new Set<ShortcutId>(['send']));
    expect(m.match(key('b'), false)).toBeNull();
  });

  it('follows a g sequence within the time limit', () => {
    let now = 0;
    const m = new ShortcutMatcher(all, () => now);
    expect(m.match(key('g'), false)).toBeNull();
    now = 500;
    expect(m.match(key('e'), false)).toBe('goEdit');
    // The second key of a sequence is not also its own shortcut (E is the eraser).
    expect(m.match(key('g'), false)).toBeNull();
    now = 3000;
    expect(m.match(key('e'), false)).toBe('eraser');
  });
});

describe('formatCombo', () => {
  it('writes combinations for each platform', () => {
    expect(formatCombo('mod+shift+z', false)).toBe('Ctrl+Shift+Z');
    expect(formatCombo('mod+enter', true)).toBe('⌘Enter');
    expect(formatCombo('g e', false)).toBe('G then E');
    expect(formatCombo('[', false)).toBe('[');
    expect(formatCombo('+', false)).toBe('+');
    expect(formatCombo('escape', false)).toBe('Esc');
  });
});
