import { describe, expect, it } from 'vitest';
import { markerIndex, parseSplicedJson, splicedBytes } from './jsonSplice';

const b64 = (n: number, c = 'Q') => c.repeat(n);

describe('parseSplicedJson', () => {
  it('cuts long base64 values out and parses the rest', () => {
    const body = Buffer.from(
      JSON.stringify({
        created: 1,
        data: [{ b64_json: b64(1000), revised_prompt: 'x' }, { b64_json: b64(2000, 'R') }],
        usage: { total_tokens: 5 },
      }),
    );
    const doc = parseSplicedJson<{
      created: number;
      data: Array<{ b64_json: string }>;
      usage: { total_tokens: number };
    }>(body);
    expect(doc.value.created).toBe(1);
    expect(doc.value.usage.total_tokens).toBe(5);
    expect(doc.strings).toHaveLength(2);
    expect(splicedBytes(doc, doc.value.data[0]!.b64_json)!.toString()).toBe(b64(1000));
    expect(splicedBytes(doc, doc.value.data[1]!.b64_json)!.toString()).toBe(b64(2000, 'R'));
    // The cut bytes are views of the input, not copies.
    expect(doc.strings[0]![0]!.buffer).toBe(body.buffer);
  });

  it('reads input in pieces cut anywhere exactly as one buffer, without copying the values', () => {
    const body = Buffer.from(
      `{"type":"x","item":{ "result" : "${b64(5000)}", "size":"1x1"},"note":"a \\"quote\\"",` +
        `"data":[{"b64_json":"${b64(3000, 'Q')}"}],"tail":[1,2]}`,
    );
    const whole = parseSplicedJson<Record<string, unknown>>(body);
    for (const size of [1, 2, 3, 7, 64, 999, 4096]) {
      const pieces: Buffer[] = [];
      for (let i = 0; i < body.length; i += size) pieces.push(body.subarray(i, i + size));
      const doc = parseSplicedJson<Record<string, unknown>>(pieces);
      expect(doc.value, `pieces of ${size}`).toEqual(whole.value);
      expect(doc.strings.map((s) => Buffer.concat(s).toString())).toEqual([
        b64(5000),
        b64(3000, 'Q'),
      ]);
      for (const piece of doc.strings.flat()) expect(piece.buffer).toBe(body.buffer);
    }
  });

  it('tolerates whitespace around the colon and leaves short values in place', () => {
    const doc = parseSplicedJson<{ result: string; b64_json: string }>(
      Buffer.from(`{ "result" :  "${b64(300)}", "b64_json": "short" }`),
    );
    expect(markerIndex(doc.value.result)).toBe(0);
    expect(doc.value.b64_json).toBe('short');
  });

  it('leaves escaped values to JSON.parse, which decodes them correctly', () => {
    const escaped = `${'a'.repeat(300)}\\/b`;
    const doc = parseSplicedJson<{ b64_json: string }>(Buffer.from(`{"b64_json":"${escaped}"}`));
    expect(doc.value.b64_json).toBe(`${'a'.repeat(300)}/b`);
    expect(doc.strings).toHaveLength(0);
  });

  it('does not mistake a string value equal to a key name for the key', () => {
    const doc = parseSplicedJson<{ type: string; item: { result: string } }>(
      Buffer.from(`{"type":"result","item":{"result":"${b64(400)}"}}`),
    );
    expect(doc.value.type).toBe('result');
    expect(splicedBytes(doc, doc.value.item.result)!.length).toBe(400);
  });
  it('is not fooled by key-like text inside an earlier string with escaped quotes', () => {
    const tricky = `say \\"b64_json\\":\\"${'x'.repeat(300)}`;
    const body = Buffer.from(
      JSON.stringify({ note: tricky, data: [{ b64_json: 'Z'.repeat(500) }] }),
    );
    const doc = parseSplicedJson<{ note: string; data: Array<{ b64_json: string }> }>(body);
    expect(doc.value.note).toBe(tricky);
    expect(doc.strings).toHaveLength(1);
    expect(splicedBytes(doc, doc.value.data[0]!.b64_json)!.toString()).toBe('Z'.repeat(500));
  });
});
