import { normaliseUsage } from '../../../shared/tokenUsage';
import { UpstreamError } from '../../core/upstreamError';
import { piecesLength, type Base64Pieces } from '../../bytes/base64Pieces';
import { ImageValueReader, parsePreamble } from '../imageValue';
import { splicedBytes, splicedPieces, type SplicedJson } from '../../bytes/jsonSplice';
import type { ImageOutcome, ImageStart, PartialImage } from '../types';
import {
  readBridgeEvents,
  SkippedValue,
  type BridgeEventShape,
  type ItemShape,
  type ResponseShape,
  type ValueChoice,
} from './bridgeEventStream';
import { looksLikeRefusal, streamFailure } from './streamFailure';

type Headers = Record<string, string | string[] | undefined>;
type Json = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The error object of an `error` event or a `response.failed`, as a thrown UpstreamError. */
export function failureOfEvent(
  value: BridgeEventShape,
  type: string,
  headers: Headers,
  now: number,
): UpstreamError | null {
  if (type === 'response.failed')
    return streamFailure(
      value.response?.error ?? { message: 'the upstream response failed' },
      headers,
      now,
    );
  if (type === 'error' || (value.error && typeof value.error === 'object'))
    return streamFailure(value.error ?? (value as Json), headers, now);
  return null;
}

/**
 * Reads a bridge stream into one image, as it arrives. Results are trusted in the protocol
 * page's order: `response.output_item.done`, then `response.completed.output[]`, then the last
 * partial image only as a last resort. The first image's base64 is offered to `onImageStart` once
 * its header is known and then streamed piece by piece (bridgeEventStream.ts), like the API-key
 * path's readers; the copy `response.completed` repeats is skipped as it arrives, never held, and
 * the image is billed from the small rest of that event: `response.tool_usage.image_gen`, never
 * `response.usage` (the text model's). Settings are returned as the upstream echoed them, so a
 * silent downgrade (`size: auto`) is visible to dispatch.
 */
export async function readBridgeImage(
  body: AsyncIterable<Buffer | Uint8Array>,
  ctx: {
    onPartial?: (partial: PartialImage) => void;
    onImageStart?: ImageStart;
    headers: Headers;
    now: () => number;
  },
): Promise<ImageOutcome> {
  let done: { b64: Base64Pieces; item: ItemShape } | null = null;
  let lastPartial: Buffer | null = null;
  let final: { doc: SplicedJson<BridgeEventShape>; response: ResponseShape } | null = null;
  let tools: unknown[] | undefined;
  let createdAt: number | null = null;
  let incomplete: string | null = null;
  const deltas: string[] = [];
  const refusals: string[] = [];

  const choose: ValueChoice = (type, preamble) => {
    if (type === 'response.output_item.done') {
      const itemType = parsePreamble<BridgeEventShape>(preamble)?.item?.type;
      // `type` usually comes first; where it does not, only an image call has a `result`.
      if (itemType !== undefined && itemType !== 'image_generation_call') return null;
    } else if (type !== 'response.completed' && type !== 'response.incomplete') return null;
    // The image came already: this is its repeat (or a second image, which one call never asks).
    if (done) return new SkippedValue();
    const onImageStart = ctx.onImageStart;
    return new ImageValueReader(
      onImageStart && ((info) => onImageStart({ info, created: createdAt })),
    );
  };

  for await (const { doc, type } of readBridgeEvents(body, choose)) {
    const value = doc.value;
    const failure = failureOfEvent(value, type, ctx.headers, ctx.now());
    if (failure) throw failure;
    if (value.response?.tools) tools = value.response.tools;
    if (typeof value.response?.created_at === 'number') createdAt ??= value.response.created_at;
    if (type === 'response.image_generation_call.partial_image') {
      const b64 = splicedBytes(doc, value.partial_image_b64);
      if (b64 && b64.length > 0) {
        lastPartial = b64;
        ctx.onPartial?.({ b64, index: value.partial_image_index ?? 0 });
      }
    } else if (
      type === 'response.output_item.done' &&
      value.item?.type === 'image_generation_call'
    ) {
      const b64 = splicedPieces(doc, value.item.result);
      if (!done && b64 && piecesLength(b64) > 0) done = { b64, item: value.item };
    } else if (type === 'response.output_text.delta' && typeof value.delta === 'string') {
      deltas.push(value.delta);
    } else if (type === 'response.refusal.delta' && typeof value.delta === 'string') {
      refusals.push(value.delta);
    } else if (type === 'response.completed' || type === 'response.incomplete') {
      if (value.response) final = { doc, response: value.response };
      if (type === 'response.incomplete')
        incomplete = value.response?.incomplete_details?.reason ?? 'unknown';
    }
  }

  if (incomplete === 'content_filter') {
    throw new UpstreamError({
      kind: 'refused',
      message: 'the upstream stopped the response by its content filter',
    });
  }
  const output = final?.response.output ?? [];
  const fromOutput = output.find((item) => item.type === 'image_generation_call' && item.result);
  const item = done?.item ?? fromOutput;
  const b64 =
    done?.b64 ??
    (fromOutput && final ? splicedPieces(final.doc, fromOutput.result) : null) ??
    (lastPartial ? [lastPartial] : null);
  if (!b64 || piecesLength(b64) === 0)
    throw noImage(output, deltas, refusals, final !== null, incomplete);

  const tool = (final?.response.tools ?? tools)?.find(
    (t): t is Json =>
      typeof t === 'object' && t !== null && (t as Json).type === 'image_generation',
  );
  return {
    b64,
    created: final?.response.created_at ?? createdAt ?? Math.floor(ctx.now() / 1000),
    revisedPrompt: str(item?.revised_prompt),
    size: str(item?.size) ?? str(tool?.size),
    quality: str(item?.quality) ?? str(tool?.quality),
    background: str(item?.background) ?? str(tool?.background),
    outputFormat: str(item?.output_format) ?? str(tool?.output_format),
    usage: normaliseUsage(final?.response.tool_usage?.image_gen, { imageModel: true }),
  };
}

/** Text instead of an image is a refusal when it reads like one; otherwise no_image, with the text. */
function noImage(
  output: ItemShape[],
  deltas: string[],
  refusals: string[],
  completed: boolean,
  incomplete: string | null,
): UpstreamError {
  const fromItems = output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((part) => str(part.text) ?? str(part.refusal) ?? '')
    .join('');
  const refusal = refusals.join('').trim();
  const text = (fromItems || deltas.join('')).trim();
  if (refusal) return new UpstreamError({ kind: 'refused', message: refusal });
  if (text && looksLikeRefusal(text)) return new UpstreamError({ kind: 'refused', message: text });
  if (text)
    return new UpstreamError({
      kind: 'no_image',
      message: `the upstream answered with text instead of an image: ${text.slice(0, 500)}`,
    });
  if (incomplete)
    return new UpstreamError({
      kind: 'no_image',
      message: `the response ended incomplete (${incomplete})`,
    });
  return completed
    ? new UpstreamError({ kind: 'no_image', message: 'the response completed without an image' })
    : new UpstreamError({
        kind: 'bad_response',
        message: 'the upstream stream ended before the response completed',
      });
}
