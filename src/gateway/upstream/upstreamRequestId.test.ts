import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_REQUEST_ID_MAX, upstreamRequestIdOf } from './upstreamRequestId';

describe('upstreamRequestIdOf', () => {
  it("reads x-request-id (an Atelier's or OpenAI's), then request-id", () => {
    expect(upstreamRequestIdOf({ 'x-request-id': 'req_abc123' })).toBe('req_abc123');
    expect(upstreamRequestIdOf({ 'request-id': 'req_1' })).toBe('req_1');
    expect(upstreamRequestIdOf({ 'x-request-id': ['req_a', 'req_b'] })).toBe('req_a');
    expect(upstreamRequestIdOf({ 'x-request-id': ' req_a ' })).toBe('req_a');
    expect(upstreamRequestIdOf({ 'x-request-id': 'a b', 'request-id': 'req_2' })).toBe('req_2');
    expect(upstreamRequestIdOf({})).toBeNull();
    expect(upstreamRequestIdOf({ 'x-request-id': '' })).toBeNull();
    expect(upstreamRequestIdOf({ 'x-request-id': 'a,b' })).toBeNull();
    expect(
      upstreamRequestIdOf({ 'x-request-id': 'x'.repeat(UPSTREAM_REQUEST_ID_MAX + 1) }),
    ).toBeNull();
  });

  it('answers null or a short visible id without a comma, whatever the headers hold (property)', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.array(fc.string({ maxLength: 40 }), { maxLength: 3 }),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('x-request-id', 'request-id', 'other', '__proto__'), value),
        (headers) => {
          const id = upstreamRequestIdOf(headers);
          if (id === null) return;
          expect(id.length).toBeGreaterThan(0);
          expect(id.length).toBeLessThanOrEqual(UPSTREAM_REQUEST_ID_MAX);
          // Visible ASCII only (33..126), never a comma.
          for (const char of id) {
            const code = char.codePointAt(0)!;
            expect(code >= 33 && code <= 126 && char !== ',').toBe(true);
          }
        },
      ),
    );
  });
});
