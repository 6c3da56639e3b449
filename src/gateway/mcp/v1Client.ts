import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { parseSse } from '../bytes/sse';

/**
 * The MCP tools' way into the gateway: a real /v1 request on the gateway's own address with the
 * caller's key, so each tool call is an ordinary request (the key check, limits and budget,
 * usage row, gallery and events), not a second path beside /v1. Always streamed: partial images
 * become progress, and the caller can leave mid-run.
 */

/** An error answer of /v1, as it came: the same message and parameter a direct caller sees. */
export class V1Error extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null,
    readonly code: string | null,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

export interface DeliveredImage {
  index: number;
  b64: string;
  size: string;
  outputFormat: string;
}

export interface PartialImage {
  imageIndex: number;
  partialIndex: number;
}

export interface V1ClientOptions {
  /** The gateway's own base URL, like http://127.0.0.1:8787. */
  baseUrl: string;
  key: string;
  /** The request's run id (`x-atelier-run`), so the MCP server can cancel its upstream work. */
  runId?: string;
  /** An edit made from a gallery image (`x-atelier-parent-image`). */
  parentImageId?: string;
  signal?: AbortSignal;
  onPartial?: (partial: PartialImage) => void;
  /** Called as soon as the answer's headers name the request. */
  onRequestId?: (requestId: string) => void;
}

type Json = Record<string, unknown>;

/** POSTs a streamed image request to `/v1/<path>` and reads its events to the end. */
export async function streamImages(
  path: 'images/generations' | 'images/edits',
  body: Json,
  options: V1ClientOptions,
): Promise<{ requestId: string | null; images: DeliveredImage[] }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.key}`,
    'content-type': 'application/json',
    accept: 'text/event-stream',
  };
  if (options.runId) headers['x-atelier-run'] = options.runId;
  if (options.parentImageId) headers['x-atelier-parent-image'] = options.parentImageId;
  const res = await fetch(`${options.baseUrl}/v1/${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...body, stream: true }),
    signal: options.signal,
  });
  const requestId = res.headers.get('x-request-id');
  if (requestId) options.onRequestId?.(requestId);
  if (!res.ok || !res.body) {
    throw errorOf(res.status, await res.text(), requestId);
  }
  const images: DeliveredImage[] = [];
  const source = Readable.fromWeb(res.body as ReadableStream);
  source.on('error', () => undefined); // read below; an abort ends the loop with its error
  for await (const event of parseSse(source)) {
    const data = JSON.parse(event.data.toString('utf8')) as Json;
    const type = String(data.type ?? event.event ?? '');
    if (type === 'error') throw errorOf(500, JSON.stringify(data), requestId);
    const imageIndex = typeof data.image_index === 'number' ? data.image_index : 0;
    if (type.endsWith('.partial_image')) {
      options.onPartial?.({
        imageIndex,
        partialIndex: typeof data.partial_image_index === 'number' ? data.partial_image_index : 0,
      });
    } else if (type.endsWith('.completed')) {
      images.push({
        index: imageIndex,
        b64: String(data.b64_json),
        size: String(data.size),
        outputFormat: String(data.output_format),
      });
    }
  }
  return { requestId, images: images.sort((a, b) => a.index - b.index) };
}

function errorOf(status: number, text: string, requestId: string | null): V1Error {
  try {
    const error = (JSON.parse(text) as { error?: Json }).error;
    if (error && typeof error.message === 'string') {
      return new V1Error(
        status,
        error.message,
        typeof error.param === 'string' ? error.param : null,
        typeof error.code === 'string' ? error.code : null,
        requestId,
      );
    }
  } catch {
    // not JSON: said as it came below
  }
  return new V1Error(status, `HTTP ${status}: ${text.slice(0, 500)}`, null, null, requestId);
}
