import { normaliseUsage } from '../billing/normaliseUsage';
import { UpstreamError } from './errors';
import { parseSplicedJson, splicedBytes } from './jsonSplice';
import type { ImageOutcome } from './types';

interface ImagesResponseShape {
  created?: number;
  data?: Array<{ b64_json?: unknown; revised_prompt?: unknown }>;
  background?: unknown;
  output_format?: unknown;
  quality?: unknown;
  size?: unknown;
  usage?: unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The native channel answers plain Images-API JSON (protocol page 2.2a); one image was asked. */
export function outcomeFromImagesJson(body: Buffer, now: () => number): ImageOutcome {
  let doc;
  try {
    doc = parseSplicedJson<ImagesResponseShape>(body);
  } catch {
    throw new UpstreamError({
      kind: 'bad_response',
      message: 'the upstream answered with unreadable JSON',
    });
  }
  const item = doc.value.data?.[0];
  const b64 = item ? splicedBytes(doc, item.b64_json) : null;
  if (!b64 || b64.length === 0)
    throw new UpstreamError({
      kind: 'no_image',
      message: 'the upstream answered without image data',
    });
  return {
    b64,
    created: typeof doc.value.created === 'number' ? doc.value.created : Math.floor(now() / 1000),
    revisedPrompt: str(item?.revised_prompt),
    size: str(doc.value.size),
    quality: str(doc.value.quality),
    background: str(doc.value.background),
    outputFormat: str(doc.value.output_format),
    usage: normaliseUsage(doc.value.usage, { imageModel: true }),
  };
}
