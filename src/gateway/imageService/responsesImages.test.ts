import { joinPieces, piecesLength } from '../bytes/base64Pieces';
import { describe, expect, it } from 'vitest';
import { parseSplicedJson } from '../bytes/jsonSplice';
import { ResponsesImageTap } from './responsesImages';

const IMAGE = 'iVBORw0KGgo'.padEnd(4000, 'A');
const data = (value: unknown) => Buffer.from(JSON.stringify(value));
const call = (id: string, result: string | null) => ({
  id,
  type: 'image_generation_call',
  status: 'completed',
  revised_prompt: `revised ${id}`,
  result,
});

describe('ResponsesImageTap', () => {
  it('takes a finished image from output_item.done when the final response leaves it out', () => {
    const tap = new ResponsesImageTap();
    tap.outputItemDone(data({ type: 'response.output_item.done', item: call('ig_1', IMAGE) }));
    const completed = parseSplicedJson<{ response: object }>(
      data({
        type: 'response.completed',
        response: {
          output: [call('ig_1', null)],
          tool_usage: { image_gen: { input_tokens: 10, output_tokens: 1000, total_tokens: 1010 } },
        },
      }),
    );
    tap.response(completed, completed.value.response);
    const images = tap.images();
    expect(images).toHaveLength(1);
    expect(joinPieces(images[0]!.b64).toString('latin1')).toBe(IMAGE);
    expect(images[0]!.revisedPrompt).toBe('revised ig_1');
    expect(tap.imageUsage()).toMatchObject({
      output_tokens: 1000,
      output_tokens_details: { text_tokens: 0, image_tokens: 1000 },
    });
  });

  it('keeps each call once, in order, and ignores other items and empty results', () => {
    const tap = new ResponsesImageTap();
    tap.outputItemDone(data({ item: { id: 'msg_1', type: 'message', content: [] } }));
    tap.outputItemDone(data({ item: call('ig_1', IMAGE) }));
    tap.outputItemDone(data({ item: call('ig_2', '') }));
    const whole = parseSplicedJson<{ output: unknown[] }>(
      data({ output: [call('ig_1', IMAGE), call('ig_2', `${IMAGE}B`), call('ig_3', 'AAAA')] }),
    );
    tap.response(whole, whole.value);
    expect(tap.images().map((i) => [i.revisedPrompt, piecesLength(i.b64)])).toEqual([
      ['revised ig_1', IMAGE.length],
      ['revised ig_2', IMAGE.length + 1],
      // Too short to be cut out of the JSON: still read, from the parsed string.
      ['revised ig_3', 4],
    ]);
    expect(tap.imageUsage()).toBeNull();
  });

  it('cuts the image out of the event without copying it', () => {
    const tap = new ResponsesImageTap();
    const event = data({ item: call('ig_1', IMAGE) });
    tap.outputItemDone(event);
    expect(tap.images()[0]!.b64[0]!.buffer).toBe(event.buffer);
  });
});
