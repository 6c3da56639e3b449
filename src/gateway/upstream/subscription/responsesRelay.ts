import { UpstreamError } from '../../core/upstreamError';
import type { SseEvent } from '../../bytes/sse';
import { failureOfEvent } from './bridgeImage';
import { readBridgeEvent } from './bridgeEventStream';
import { RawString, joinChunks, resolveSpliced, serialiseJson } from './jsonChunks';

type Headers = Record<string, string | string[] | undefined>;
type Json = Record<string, unknown>;

/** For callers that send none: the subscription backend refuses empty instructions. */
export const DEFAULT_INSTRUCTIONS = 'You are a helpful assistant.';

const isRecord = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A caller's Responses body as the subscription backend accepts it: always streamed, never
 * stored, with non-empty instructions, and no `n` in any tool (the upstream rejects it). The
 * text model is the caller's (already mapped by the account's model map); the account's bridge
 * model only fills in a missing one.
 */
export function bridgeResponsesBody(body: Json, bridgeModel: string): Json {
  const out: Json = { ...body, stream: true, store: false };
  if (typeof out.instructions !== 'string' || out.instructions.trim() === '')
    out.instructions = DEFAULT_INSTRUCTIONS;
  if (typeof out.model !== 'string' || out.model === '') out.model = bridgeModel;
  if (Array.isArray(out.tools)) {
    out.tools = out.tools.map((tool: unknown) => {
      if (!isRecord(tool) || !Object.hasOwn(tool, 'n')) return tool;
      const { n: _n, ...rest } = tool;
      return rest;
    });
  }
  return out;
}

/**
 * Builds the non-streaming reply from the stream: the final response object of
 * `response.completed` (or `response.incomplete`), with any image result it lacks filled in from
 * `response.output_item.done`. Image bytes are spliced through without being parsed or copied
 * into strings. Failures in the stream become UpstreamErrors, as an HTTP error would.
 */
export async function assembleResponse(
  events: AsyncIterable<SseEvent>,
  headers: Headers,
  now: () => number,
): Promise<Buffer> {
  const doneItems: Json[] = [];
  let final: Json | null = null;
  for await (const event of events) {
    const read = readBridgeEvent(event);
    if (!read) continue;
    const { doc, type } = read;
    const failure = failureOfEvent(doc.value, type, headers, now());
    if (failure) throw failure;
    if (type === 'response.output_item.done' && isRecord(doc.value.item)) {
      doneItems.push(resolveSpliced(doc, doc.value.item) as Json);
    } else if (
      (type === 'response.completed' || type === 'response.incomplete') &&
      isRecord(doc.value.response)
    ) {
      final = resolveSpliced(doc, doc.value.response) as Json;
    }
  }
  if (!final) {
    throw new UpstreamError({
      kind: 'bad_response',
      message: 'the upstream stream ended before the response completed',
    });
  }
  const output = Array.isArray(final.output) ? (final.output as unknown[]) : [];
  if (output.length === 0 && doneItems.length > 0) {
    final.output = doneItems;
  } else {
    final.output = output.map((item) => {
      if (!isRecord(item) || item.type !== 'image_generation_call' || hasResult(item)) return item;
      const done = doneItems.find((d) => d.id === item.id && hasResult(d));
      return done ?? item;
    });
  }
  return joinChunks(serialiseJson(final));
}

function hasResult(item: Json): boolean {
  return (
    item.result instanceof RawString || (typeof item.result === 'string' && item.result !== '')
  );
}
