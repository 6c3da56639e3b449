import { describe, expect, it } from 'vitest';
import { inlineThumb, rememberInlineThumbs } from './inlineThumbs';

describe('inline thumbnails', () => {
  it('holds what a list brought as data URLs, the oldest going first past 240', () => {
    expect(inlineThumb('img_a')).toBeUndefined();
    rememberInlineThumbs(undefined);
    rememberInlineThumbs({ img_a: 'UklGRg==' });
    expect(inlineThumb('img_a')).toBe('data:image/webp;base64,UklGRg==');
    const many = Object.fromEntries(Array.from({ length: 240 }, (_, i) => [`img_${i}`, 'AA==']));
    rememberInlineThumbs(many);
    // 241 held: the oldest (img_a) is the one let go; the newest stay.
    expect(inlineThumb('img_a')).toBeUndefined();
    expect(inlineThumb('img_0')).toBe('data:image/webp;base64,AA==');
    expect(inlineThumb('img_239')).toBe('data:image/webp;base64,AA==');
  });
});
