import fc from 'fast-check';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkPrompt } from '../../src/gateway/contentFilter/checkPrompt';
import { parseSplicedJson, splicedBytes } from '../../src/gateway/bytes/jsonSplice';
import { parseSse } from '../../src/gateway/bytes/sse';
import { incompleteReason, inspectImage } from '../../src/gateway/bytes/imageInspect';
import { fuzz, FUZZ_TIMEOUT_MS } from './settings';

/** Pieces of `bytes` cut at the given points, as a socket would deliver them. */
function cutAt(bytes: Buffer, points: number[]): Buffer[] {
  const cuts = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of cuts) {
    if (cut > from) pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  if (from < bytes.length) pieces.push(bytes.subarray(from));
  return pieces;
}

const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe('the content filter on random and adversarial text', () => {
  const adversarial = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    // Long runs of one character, separators between letters, stacked combining marks.
    fc
      .tuple(
        fc.constantFrom('x', 'a', '.', '-', '*', ' ', '\u0301', '\u200b', 'ы', '1'),
        fc.integer({ min: 1, max: 20_000 }),
      )
      .map(([c, n]) => c.repeat(n)),
    fc
      .array(
        fc.constantFrom(
          'n',
          'u',
          'd',
          'e',
          '.',
          ' ',
          '*',
          '3',
          '\u0301',
          'y/o',
          '--no',
          'negative:',
        ),
        { maxLength: 300 },
      )
      .map((a) => a.join('')),
  );

  it(
    'returns a verdict for any text, in time linear in its length',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      fc.assert(
        fc.property(adversarial, (text) => {
          const started = performance.now();
          const verdict = checkPrompt(text, 'block');
          expect(typeof verdict.allowed).toBe('boolean');
          if (!verdict.allowed) expect(verdict.category).not.toBeNull();
          // Generous on a loaded machine; a quadratic pass over 20,000 characters takes seconds.
          expect(performance.now() - started).toBeLessThan(2_000);
        }),
        fuzz(300),
      );
    },
  );
});

describe('image header inspection on mutated files', () => {
  const samples: Buffer[] = [];
  beforeAll(async () => {
    const base = sharp({ create: { width: 24, height: 16, channels: 4, background: '#f80a' } });
    samples.push(
      await base.clone().png().toBuffer(),
      await base.clone().jpeg().toBuffer(),
      await base.clone().webp().toBuffer(),
      await base.clone().webp({ lossless: true }).toBuffer(),
    );
  });

  const mutation = fc.record({
    sample: fc.nat(3),
    edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
    cut: fc.option(fc.nat(), { nil: undefined }),
  });

  it(
    'never throws, and reports only sizes it can stand behind',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      fc.assert(
        fc.property(mutation, ({ sample, edits, cut }) => {
          const bytes = Buffer.from(samples[sample]!);
          // Mutations land in the first 64 bytes (the headers) more often than not.
          for (const [at, value] of edits)
            bytes[at % Math.min(bytes.length, at % 2 ? 64 : bytes.length)] = value;
          const file = cut === undefined ? bytes : bytes.subarray(0, cut % (bytes.length + 1));
          const info = inspectImage(file);
          if (info) {
            expect(Number.isInteger(info.width) && info.width > 0).toBe(true);
            expect(Number.isInteger(info.height) && info.height > 0).toBe(true);
            const reason = incompleteReason(file, info.format);
            expect(reason === null || typeof reason === 'string').toBe(true);
            // A file cut before its end is never called complete.
            if (file.length < samples[sample]!.length - 2 && info.format === 'png') {
              expect(reason).not.toBeNull();
            }
          }
        }),
        fuzz(1_000),
      );
    },
  );
});

describe('the upstream splicers on replies cut at random points', () => {
  const b64 = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789+/'.split('')),
    minLength: 0,
    maxLength: 2_000,
  });
  const reply = fc.record({
    created: fc.integer(),
    data: fc.array(fc.record({ b64_json: b64, revised_prompt: fc.string({ maxLength: 30 }) }), {
      maxLength: 3,
    }),
    usage: fc.jsonValue({ maxDepth: 2 }),
    note: fc.string({ maxLength: 40 }),
  });

  it(
    'JSON: pieces cut anywhere read as JSON.parse reads the whole',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      fc.assert(
        fc.property(reply, cuts, (value, points) => {
          const bytes = Buffer.from(JSON.stringify(value));
          const doc = parseSplicedJson<typeof value>(cutAt(bytes, points));
          expect(doc.value.created).toBe(value.created);
          expect(doc.value.note).toBe(value.note);
          value.data.forEach((item, i) => {
            expect(splicedBytes(doc, doc.value.data[i]!.b64_json)!.toString()).toBe(item.b64_json);
          });
        }),
        fuzz(300),
      );
    },
  );

  it(
    'JSON: a reply cut short or damaged throws a SyntaxError, nothing else',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      fc.assert(
        fc.property(reply, fc.nat(), fc.nat(), cuts, (value, end, flip, points) => {
          const bytes = Buffer.from(JSON.stringify(value));
          const damaged = Buffer.from(bytes.subarray(0, end % (bytes.length + 1)));
          if (damaged.length > 0 && flip % 3 === 0) damaged[flip % damaged.length] = 0x22;
          try {
            parseSplicedJson(cutAt(damaged, points));
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
          }
        }),
        fuzz(300),
      );
    },
  );

  it(
    'SSE: a stream cut anywhere yields the events of the whole, byte for byte',
    { timeout: FUZZ_TIMEOUT_MS },
    async () => {
      const event = fc.record({
        name: fc.option(
          fc.constantFrom('image_generation.partial_image', 'response.completed', 'x'),
          { nil: undefined },
        ),
        data: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
        crlf: fc.boolean(),
        comment: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(event, { minLength: 1, maxLength: 6 }),
          cuts,
          async (events, points) => {
            const text = events
              .map((e) => {
                const nl = e.crlf ? '\r\n' : '\n';
                return `${e.comment ? `: keepalive${nl}${nl}` : ''}${e.name ? `event: ${e.name}${nl}` : ''}data: ${e.data}${nl}${nl}`;
              })
              .join('');
            const bytes = Buffer.from(text);
            const read = async (pieces: Buffer[]) => {
              const out: string[] = [];
              async function* source() {
                for (const piece of pieces) yield piece;
              }
              for await (const e of parseSse(source()))
                out.push(`${e.event}|${e.data.toString()}|${e.raw.toString()}`);
              return out;
            };
            const whole = await read([bytes]);
            expect(whole).toHaveLength(events.length);
            expect(await read(cutAt(bytes, points))).toEqual(whole);
            // Cut short: never throws, and never more events than the whole.
            const short = await read(
              cutAt(bytes.subarray(0, (points[0] ?? 0) % (bytes.length + 1)), points),
            );
            expect(short.length).toBeLessThanOrEqual(whole.length);
          },
        ),
        fuzz(200),
      );
    },
  );
});
