import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { shortenRuns } from '../contentFilter/normalize';
import { checkPrompt } from '../contentFilter/checkPrompt';
import { codePointsUpTo } from './fields';
import { MAX_PROMPT_CHARS, parseImageOptions, validCount } from './imageOptions';
import { checkNesting, MAX_JSON_DEPTH } from './nesting';

const JSON_CTX = { endpoint: 'generations' } as const;

function paramOf(fn: () => unknown): string | null {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return error.param;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('codePointsUpTo', () => {
  it('counts code points, a surrogate pair as one and a lone surrogate as one', () => {
    expect(codePointsUpTo('', 5)).toBe(0);
    expect(codePointsUpTo('abc', 5)).toBe(3);
    expect(codePointsUpTo('\u{1F3A8}\u{1F3A8}', 5)).toBe(2);
    expect(codePointsUpTo('a\uD800b', 5)).toBe(3);
    expect(codePointsUpTo('\uDC00\uD800', 5)).toBe(2);
    expect(codePointsUpTo('\uD800', 5)).toBe(1);
  });

  it('stops at max + 1', () => {
    expect(codePointsUpTo('abcdef', 3)).toBe(4);
    expect(codePointsUpTo('\u{1F3A8}'.repeat(4), 4)).toBe(4);
    expect(codePointsUpTo('\u{1F3A8}'.repeat(4) + 'a', 4)).toBe(5);
    expect(codePointsUpTo('a'.repeat(9), 4)).toBe(5);
  });

  it('agrees with [...text].length up to the limit on mixed text', () => {
    const samples = ['héllo', 'a\u{1F3A8}b\u{1F600}', '\uD83D', 'x\uDE00y', '\u{10FFFF}z'];
    for (const text of samples) {
      expect(codePointsUpTo(text, 100)).toBe([...text].length);
    }
  });
});

describe('the prompt limit', () => {
  it('refuses a 60 MB prompt without walking it (the old count took ~12 s and 2.4 GB)', () => {
    const prompt = 'a'.repeat(60 * 1024 * 1024);
    const started = performance.now();
    expect(paramOf(() => parseImageOptions({ model: 'image-model-2', prompt }, JSON_CTX))).toBe(
      'prompt',
    );
    // Generous for a loaded machine: the check reads no more than 64,002 UTF-16 units.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses 32,001 astral characters and passes 32,000 of them', () => {
    const ok = '\u{1F3A8}'.repeat(MAX_PROMPT_CHARS);
    expect(parseImageOptions({ model: 'image-model-2', prompt: ok }, JSON_CTX).prompt).toBe(ok);
    expect(
      paramOf(() =>
        parseImageOptions({ model: 'image-model-2', prompt: ok + '\u{1F3A8}' }, JSON_CTX),
      ),
    ).toBe('prompt');
  });
});

describe('validCount', () => {
  it('keeps only counts the endpoint accepts', () => {
    expect(validCount(3)).toBe(3);
    for (const bad of [1e300, 2.5, 0, -0, 11, Infinity, NaN, '2', null]) {
      expect(validCount(bad)).toBeNull();
    }
  });
});

describe('checkNesting', () => {
  it('lets depth 64 pass and names the field at depth 65', () => {
    const nest = (depth: number): unknown => {
      let value: unknown = 'x';
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    expect(() => checkNesting({ input: nest(MAX_JSON_DEPTH) })).not.toThrow();
    expect(paramOf(() => checkNesting({ a: 1, input: nest(MAX_JSON_DEPTH + 1) }))).toBe('input');
  });

  it('walks a million levels without overflowing the stack', () => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < 1_000_000; i++) value = { a: value };
    expect(paramOf(() => checkNesting({ metadata: value }))).toBe('metadata');
  });
});

describe('shortenRuns', () => {
  it('matches the replace it stands for', () => {
    for (const word of ['sexxxy', 'aaa', 'aabbbcccc', 'abc', 'xxxxxxyyy', '']) {
      expect(shortenRuns(word, 2)).toBe(word.replace(/(.)\1{2,}/g, '$1$1'));
      expect(shortenRuns(word, 1)).toBe(word.replace(/(.)\1{2,}/g, '$1'));
    }
  });

  it('takes a run of five million letters (the regex overflowed its stack)', () => {
    expect(shortenRuns('x'.repeat(5_000_000), 2)).toBe('xx');
    expect(checkPrompt('n' + 'u'.repeat(5_000_000) + 'de', 'block').allowed).toBe(false);
  });
});
