import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinPieces } from './base64Pieces';
import { readStreamedEvents, type StreamedEvent, type ValueTaker } from './streamedEvents';

const QUOTE = 0x22;
const RESULT_KEY = Buffer.from('"result":"', 'latin1');

/** Keeps a value's pieces up to its closing quote (the values here hold no escapes). */
class KeptValue implements ValueTaker {
  private readonly kept: Buffer[] = [];
  take(piece: Buffer): Promise<Buffer | null> {
    const quote = piece.indexOf(QUOTE);
    if (quote < 0) {
      this.kept.push(piece);
      return Promise.resolve(null);
    }
    this.kept.push(piece.subarray(0, quote));
    return Promise.resolve(piece.subarray(quote));
  }
  text(): Buffer[] {
    return this.kept;
  }
}

interface EventCase {
  name: string | null;
  take: boolean;
  /** The long value, or null for an event without one. */
  result: string | null;
  crlf: boolean;
}

const eventCase: fc.Arbitrary<EventCase> = fc.record({
  name: fc.option(fc.constantFrom('response.completed', 'image.partial', 'x'), { nil: null }),
  take: fc.boolean(),
  result: fc.option(fc.base64String({ minLength: 0, maxLength: 3000 }), { nil: null }),
  crlf: fc.boolean(),
});

function dataOf(e: EventCase, i: number): string {
  const doc: Record<string, unknown> = { type: `t${i}`, take: e.take };
  if (e.result !== null) doc.result = e.result;
  doc.after = i;
  return JSON.stringify(doc);
}

function streamOf(events: EventCase[]): Buffer {
  return Buffer.from(
    events
      .map((e, i) => {
        const eol = e.crlf ? '\r\n' : '\n';
        const name = e.name ? `event: ${e.name}${eol}` : '';
        return `${name}data: ${dataOf(e, i)}${eol}${eol}`;
      })
      .join(''),
  );
}

async function* cut(bytes: Buffer, points: number[]): AsyncGenerator<Buffer> {
  let from = 0;
  for (const point of [...new Set(points)].sort((a, b) => a - b)) {
    if (point <= from || point >= bytes.length) continue;
    yield bytes.subarray(from, point);
    from = point;
  }
  yield bytes.subarray(from);
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<StreamedEvent[]> {
  const out: StreamedEvent[] = [];
  for await (const event of readStreamedEvents(stream, {
    valueStart: (data) => {
      const at = data.indexOf(RESULT_KEY);
      return at < 0 ? -1 : at + RESULT_KEY.length;
    },
    maxProbe: 1024,
    choose: ({ preamble }) => (preamble.includes('"take":true') ? new KeptValue() : null),
    endedInsideValue: () => new Error('ended inside a value'),
  }))
    out.push(event);
  return out;
}

describe('readStreamedEvents', () => {
  it('yields every event once, in order, its data intact, whether its value was taken or not and however the stream is cut', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventCase, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat({ max: 20_000 }), { maxLength: 40 }),
        async (events, points) => {
          const read = await readAll(cut(streamOf(events), points));
          expect(read).toHaveLength(events.length);
          read.forEach((event, i) => {
            const expected = events[i]!;
            const data = dataOf(expected, i);
            if (event.taken) {
              expect(expected.take && expected.result !== null).toBe(true);
              const value = joinPieces(event.taken.value.text()!).toString('latin1');
              expect(`${event.taken.preamble.toString()}${value}${event.taken.rest}`).toBe(data);
              expect(event.taken.name).toBe(expected.name);
            } else {
              expect(expected.take && expected.result !== null).toBe(false);
              expect(event.whole.data.toString()).toBe(data);
              expect(event.whole.event).toBe(expected.name);
            }
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('says so when the stream ends inside a value being taken, and yields a last event without its blank line', async () => {
    const open = Buffer.from('data: {"take":true,"result":"AAAA');
    await expect(readAll(cut(open, []))).rejects.toThrow('ended inside a value');
    const unterminated = Buffer.from('data: {"take":false,"result":"AAAA"}');
    const [last] = await readAll(cut(unterminated, [10]));
    expect(last?.whole?.data.toString()).toBe('{"take":false,"result":"AAAA"}');
  });
});
