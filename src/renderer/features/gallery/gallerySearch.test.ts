import { describe, expect, it } from 'vitest';
import { parseSearch } from './gallerySearch';

const keys = [
  { id: 'key_1', name: 'My app' },
  { id: 'key_2', name: 'batch' },
];

describe('gallery search syntax', () => {
  it('keeps plain words as the prompt search', () => {
    expect(parseSearch('  a quiet harbour ', keys)).toEqual({
      filters: { q: 'a quiet harbour' },
      problems: [],
    });
  });

  it('reads model, size, key (by name, any case, quoted) and a local day', () => {
    const { filters, problems } = parseSearch(
      'harbour model:image-model-2 size:1536X1024 key:"my app" date:2026-11-24',
      keys,
    );
    expect(problems).toEqual([]);
    expect(filters).toEqual({
      q: 'harbour',
      model: 'image-model-2',
      size: '1536x1024',
      key: 'key_1',
      since: new Date(2026, 10, 24).getTime(),
      until: new Date(2026, 10, 25).getTime(),
    });
  });

  it('reads a month and a from/to range of days, both ends included', () => {
    expect(parseSearch('date:2026-02', keys).filters).toMatchObject({
      since: new Date(2026, 1, 1).getTime(),
      until: new Date(2026, 2, 1).getTime(),
    });
    expect(parseSearch('from:2026-01-30 to:2026-02-02 key:key_2', keys).filters).toEqual({
      q: '',
      key: 'key_2',
      since: new Date(2026, 0, 30).getTime(),
      until: new Date(2026, 1, 3).getTime(),
    });
  });

  it('names what it cannot read and searches without it', () => {
    const { filters, problems } = parseSearch(
      'fox size:huge key:nobody date:2026-02-30 model: to:2020-01-01 from:2021-01-01',
      keys,
    );
    expect(filters.q).toBe('fox');
    expect(filters.size).toBeUndefined();
    expect(filters.key).toBeUndefined();
    expect(problems).toEqual([
      'size: "huge" is not a size like 1024x1536',
      'key: no API key is named "nobody"',
      'date: "2026-02-30" is not a date like 2026-11-24',
      'model: needs a value',
      'to: is before from:',
    ]);
  });

  it('leaves unknown fields and URLs in the prompt words', () => {
    expect(parseSearch('style:noir http://x.y', keys).filters.q).toBe('style:noir http://x.y');
  });
});
