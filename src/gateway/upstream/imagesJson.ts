import { normaliseUsage } from '../../shared/tokenUsage';
import type { Base64Pieces } from '../bytes/base64Pieces';
import { UpstreamError } from '../core/upstreamError';
import { parseSplicedJson, splicedBytes } from '../bytes/jsonSplice';
import type { ImageOutcome } from './types';

/** The Images API's JSON body (protocol page 2.2a), as far as the gateway reads it. */
export interface ImagesResponseShape {
  created?: number;
  data?: Array<{ b64_json?: unknown; revised_prompt?: unknown }>;
  background?: unknown;
  output_format?: unknown;
  quality?: unknown;
  size?: unknown;
  usage?: unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function unreadableJson(): UpstreamError {
  return new UpstreamError({
    kind: 'bad_response',
    message: 'the upstream answered with unreadable JSON',
  });
}

/** Parses a whole Images API body (one image was asked), the base64 cut out rather than parsed. */
export function outcomeFromImagesJson(body: Buffer, now: () => number): ImageOutcome {
  let doc;
  try {
    doc = parseSplicedJson<ImagesResponseShape>(body);
  } catch {
    throw unreadableJson();
  }
  const b64 = splicedBytes(doc, doc.value.data?.[0]?.b64_json);
  return outcomeFromImagesDoc(doc.value, b64 ? [b64] : [], now);
}

/** The outcome of a parsed Images API document whose image text is `b64`. */
export function outcomeFromImagesDoc(
  value: ImagesResponseShape,
  b64: Base64Pieces,
  now: () => number,
): ImageOutcome {
  if (b64.every((piece) => piece.length === 0))
    throw new UpstreamError({
      kind: 'no_image',
      message: 'the upstream answered without image data',
    });
  const item = value.data?.[0];
  return {
    b64,
    created: typeof value.created === 'number' ? value.created : Math.floor(now() / 1000),
    revisedPrompt: str(item?.revised_prompt),
    size: str(value.size),
    quality: str(value.quality),
    background: str(value.background),
    outputFormat: str(value.output_format),
    usage: normaliseUsage(value.usage, { imageModel: true }),
  };
}
