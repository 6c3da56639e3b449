import { describe, expect, it } from 'vitest';
import { csvField } from './usage';

describe('csvField', () => {
  it('leaves plain values as they are', () => {
    expect([csvField('abc'), csvField(12), csvField(false), csvField(null)]).toEqual([
      'abc',
      '12',
      'false',
      '',
    ]);
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvField('one\r\ntwo')).toBe('"one\r\ntwo"');
  });

  it('keeps spreadsheets from running text as a formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@sum')).toBe("'@sum");
    expect(csvField(-5)).toBe('-5');
  });
});
