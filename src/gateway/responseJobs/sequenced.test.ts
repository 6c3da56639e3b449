import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leadingType, withSequence } from './sequenced';

describe('withSequence', () => {
  it('reads as the object with the job’s sequence_number, whatever the object (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })), {
          nil: undefined,
        }),
        fc.nat(),
        (rest, type, upstream, n) => {
          const object: Record<string, unknown> = {
            ...(type === undefined ? {} : { type }),
            ...(upstream === undefined ? {} : { sequence_number: upstream }),
            ...rest,
          };
          const text = withSequence(JSON.stringify(object), n);
          expect(text).not.toBeNull();
          expect(JSON.parse(text!)).toEqual({
            ...JSON.parse(JSON.stringify(object)),
            sequence_number: n,
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('replaces the upstream’s number right after type instead of repeating the field', () => {
    const text = withSequence('{"type":"response.created","sequence_number":999,"a":1}', 4);
    expect(text).toBe('{"type":"response.created","sequence_number":4,"a":1}');
    expect(withSequence('{"type":"x","b64_json":"AAAA"}', 0)).toBe(
      '{"type":"x","b64_json":"AAAA","sequence_number":0}',
    );
    expect(withSequence('{}', 2)).toBe('{"sequence_number":2}');
    expect(withSequence('[1]', 2)).toBeNull();
    expect(withSequence('not json', 2)).toBeNull();
  });
});

describe('leadingType', () => {
  it('reads the type a JSON object starts with, and nothing else', () => {
    expect(leadingType('{"type":"image_generation.completed","b64_json":"AA"}')).toBe(
      'image_generation.completed',
    );
    expect(leadingType('{"type":"error"}')).toBe('error');
    expect(leadingType('{"b64_json":"AA","type":"x"}')).toBeNull();
    expect(leadingType('{"type":"a\\"b"}')).toBeNull();
  });

  it('agrees with JSON.parse whenever it answers (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), (type, rest) => {
        const text = JSON.stringify({ type, ...rest });
        const read = leadingType(text);
        if (read !== null) expect(read).toBe((JSON.parse(text) as { type: string }).type);
      }),
      { numRuns: 500 },
    );
  });
});
