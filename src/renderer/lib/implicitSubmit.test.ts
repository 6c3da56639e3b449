import { describe, expect, it } from 'vitest';
import { isImplicitSubmit } from './implicitSubmit';

/** A stand-in for the element a key went to: only its tag and type are read. */
const el = (tagName: string, type?: string) => ({ tagName, type }) as unknown as EventTarget;
const press = (target: EventTarget | null, key = 'Enter', mod = false) =>
  isImplicitSubmit({ key, ctrlKey: mod, metaKey: false, target });

describe('isImplicitSubmit', () => {
  it('is Enter in a one-line text or number field', () => {
    expect(press(el('INPUT', 'text'))).toBe(true);
    expect(press(el('INPUT', 'number'))).toBe(true);
    expect(press(el('INPUT', 'search'))).toBe(true);
  });

  it('leaves Ctrl/Cmd+Enter (the send shortcut), other keys and other elements alone', () => {
    expect(press(el('INPUT', 'text'), 'Enter', true)).toBe(false);
    expect(
      isImplicitSubmit({
        key: 'Enter',
        ctrlKey: false,
        metaKey: true,
        target: el('INPUT', 'text'),
      }),
    ).toBe(false);
    expect(press(el('INPUT', 'text'), 'a')).toBe(false);
    expect(press(el('TEXTAREA'))).toBe(false);
    expect(press(el('BUTTON', 'submit'))).toBe(false);
    expect(press(el('INPUT', 'checkbox'))).toBe(false);
    expect(press(null)).toBe(false);
  });
});
