import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { imagesQuerySchema } from '../../../shared/admin';
import { parseSearch, SEARCH_FIELDS } from './gallerySearch';

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

describe('gallery search: what the gateway would refuse becomes a note', () => {
  it('notes dates before 1970 (negative times) and searches without them', () => {
    for (const text of ['date:1960-01', 'to:0001-01-01', 'from:1969-12-30']) {
      const { filters, problems } = parseSearch(`harbour ${text}`, keys);
      expect(filters).toEqual({ q: 'harbour' });
      expect(problems).toEqual([expect.stringMatching(/before 1970/)]);
    }
    // The last day of 1969 reaches into 1970 UTC west of Greenwich: there it is read from 0.
    const lastDay = parseSearch('from:1969-12-31', keys);
    if (lastDay.problems.length === 0) expect(lastDay.filters.since).toBe(0);
    else expect(lastDay.problems).toEqual([expect.stringMatching(/before 1970/)]);
    // Years 0 to 99 are those years, not 1900 to 1999.
    expect(parseSearch('date:0099-05', keys).problems).toEqual([
      expect.stringMatching(/before 1970/),
    ]);
  });

  it('notes an over-long model and text instead of sending them', () => {
    const long = parseSearch(`model:${'m'.repeat(101)} ${'word '.repeat(150)}`, keys);
    expect(long.filters.model).toBeUndefined();
    expect(long.filters.q.length).toBeLessThanOrEqual(500);
    expect(long.problems).toEqual([
      'model: longer than 100 characters',
      'only the first 500 characters of the text are searched',
    ]);
  });

  it('never yields a query the gateway refuses, whatever is typed', () => {
    const fieldText = fc.oneof(
      fc.string({ maxLength: 700 }),
      fc
        .tuple(
          fc.constantFrom(...SEARCH_FIELDS, 'model', 'date', 'from', 'to'),
          fc.oneof(
            fc.string({ maxLength: 150 }),
            fc
              .tuple(
                fc.integer({ min: 0, max: 9999 }),
                fc.integer({ min: 0, max: 13 }),
                fc.integer({ min: 0, max: 32 }),
              )
              .map(
                ([y, m, d]) =>
                  `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
              ),
            fc
              .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }))
              .map(([y, m]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`),
          ),
        )
        .map(([field, value]) => `${field}:${value}`),
    );
    fc.assert(
      fc.property(fc.array(fieldText, { maxLength: 6 }), (parts) => {
        const { filters } = parseSearch(parts.join(' '), keys);
        const query = {
          q: filters.q || undefined,
          model: filters.model,
          size: filters.size,
          key: filters.key,
          since: filters.since === undefined ? undefined : String(filters.since),
          until: filters.until === undefined ? undefined : String(filters.until),
        };
        const checked = imagesQuerySchema.safeParse(query);
        expect(checked.success, JSON.stringify(checked.error?.issues)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
