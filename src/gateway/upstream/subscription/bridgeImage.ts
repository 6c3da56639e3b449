import { normaliseUsage } from '../../billing/normaliseUsage';
import { UpstreamError } from '../errors';
import { piecesLength, type Base64Pieces } from '../base64Pieces';
import { parseSplicedJson, splicedBytes, splicedPieces, type SplicedJson } from '../jsonSplice';
import { eventData } from '../sseParser';
import type { ImageOutcome, PartialImage, SseEvent } from '../types';
import { looksLikeRefusal, streamFailure } from './streamFailure';

type Headers = Record<string, string | string[] | undefined>;
type Json = Record<string, unknown>;

interface ItemShape {
  type?: string;
  id?: string;
  result?: unknown;
  revised_prompt?: unknown;
  size?: unknown;
  quality?: unknown;
  background?: unknown;
  output_format?: unknown;
  content?: Array<{ type?: string; text?: unknown; refusal?: unknown }>;
}

interface ResponseShape {
  created_at?: number;
  tools?: unknown[];
  tool_usage?: { image_gen?: unknown };
  output?: ItemShape[];
  error?: Json | null;
  incomplete_details?: { reason?: string } | null;
}

export interface BridgeEventShape {
  type?: string;
  response?: ResponseShape;
  item?: ItemShape;
  partial_image_b64?: unknown;
  partial_image_index?: number;
  delta?: unknown;
  error?: Json;
  code?: unknown;
  message?: unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Parses one bridge event with the base64 cut out; null for empty and `[DONE]` events. */
export function readBridgeEvent(
  event: SseEvent,
): { doc: SplicedJson<BridgeEventShape>; type: string } | null {
  const data = eventData(event);
  if (!data) return null;
  let doc: SplicedJson<BridgeEventShape>;
  try {
    doc = parseSplicedJson<BridgeEventShape>(data);
  } catch {
    throw new UpstreamError({
      kind: 'bad_response',
      message: 'the upstream sent an unreadable event',
    });
  }
  return { doc, type: doc.value.type ?? event.event ?? '' };
}

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
 * Reads a bridge stream into one image. Results are trusted in the protocol page's order:
 * `response.output_item.done`, then `response.completed.output[]`, then the last partial image
 * only as a last resort. The image is billed from `response.tool_usage.image_gen`, never from
 * `response.usage` (the text model's). Settings are returned as the upstream echoed them, so a
 * silent downgrade (`size: auto`) is visible to dispatch.
 */
export async function readBridgeImage(
  events: AsyncIterable<SseEvent>,
  ctx: { onPartial?: (partial: PartialImage) => void; headers: Headers; now: () => number },
): Promise<ImageOutcome> {
  let done: { b64: Base64Pieces; item: ItemShape } | null = null;
  let lastPartial: Buffer | null = null;
  let final: { doc: SplicedJson<BridgeEventShape>; response: ResponseShape } | null = null;
  let tools: unknown[] | undefined;
  let incomplete: string | null = null;
  const deltas: string[] = [];
  const refusals: string[] = [];

  for await (const event of events) {
    const read = readBridgeEvent(event);
    if (!read) continue;
    const { doc, type } = read;
    const value = doc.value;
    const failure = failureOfEvent(value, type, ctx.headers, ctx.now());
    if (failure) throw failure;
    if (value.response?.tools) tools = value.response.tools;
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
      if (b64 && piecesLength(b64) > 0) done = { b64, item: value.item };
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
    created: final?.response.created_at ?? Math.floor(ctx.now() / 1000),
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
