import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forgetSpliced, jsonPieces, piecesByteLength, rememberSpliced } from './jsonBody';

const text = (value: unknown) => Buffer.concat(jsonPieces(value)).toString('utf8');

describe('jsonPieces', () => {
  const big = randomBytes(300 * 1024).toString('base64');
  const other = randomBytes(200 * 1024).toString('base64url');

  it('writes exactly what JSON.stringify writes, with long base64 spliced in as bytes', () => {
    const value = {
      created: 1,
      data: [
        { b64_json: big, revised_prompt: 'a "quoted" prompt \u00e9\u{1f600}' },
        { b64_json: other },
      ],
      usage: { total_tokens: 5 },
      nothing: null,
    };
    const pieces = jsonPieces(value);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).toString('utf8')).toBe(JSON.stringify(value));
    expect(piecesByteLength(pieces)).toBe(Buffer.byteLength(JSON.stringify(value)));
    // The spliced piece is the string's own bytes, not a re-serialisation.
    expect(pieces.some((piece) => piece.length === big.length)).toBe(true);
  });

  it('serialises long strings that need escaping the ordinary way', () => {
    const needsEscapes = `${'x'.repeat(70 * 1024)}"\n\\${'\u00e9'.repeat(10)}`;
    const value = { text: needsEscapes, list: [needsEscapes, 'short'] };
    expect(jsonPieces(value)).toHaveLength(1);
    expect(text(value)).toBe(JSON.stringify(value));
  });

  it('is not fooled by caller text that looks like its marker', () => {
    const sneaky = '\u0001deadbeefdeadbeef:0 and \\u0001 and "\u0001"';
    const value = { prompt: sneaky, b64_json: big, tail: `${sneaky}\u0001` };
    expect(text(value)).toBe(JSON.stringify(value));
  });

  it('serves a remembered string from its kept bytes until it is forgotten', () => {
    const first = jsonPieces({ b64_json: big });
    rememberSpliced(big);
    const second = jsonPieces({ b64_json: big });
    const third = jsonPieces({ b64_json: big });
    const spliced = (pieces: Buffer[]) => pieces.find((piece) => piece.length === big.length)!;
    // Identity, compared directly: matchers would format 300 KB buffers for their messages.
    expect(spliced(second) === spliced(third)).toBe(true);
    expect(spliced(first) === spliced(second)).toBe(false);
    forgetSpliced(big);
    expect(spliced(jsonPieces({ b64_json: big })) === spliced(second)).toBe(false);
    expect(Buffer.concat(third).toString()).toBe(JSON.stringify({ b64_json: big }));
  });

  it('handles values with no long strings, and top-level strings', () => {
    for (const value of [{ a: 1 }, [1, 'two', null], 'plain', 42, big]) {
      expect(text(value)).toBe(JSON.stringify(value));
    }
  });
});
