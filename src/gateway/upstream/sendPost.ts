import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';

export interface OutgoingBody {
  chunks: Buffer[];
  length: number;
}

/**
 * One upstream POST with the call's own timeouts (they depend on the image size). A body of
 * several chunks (a multipart edit, JSON with spliced base64) goes out as it is: the image bytes
 * are never copied into one buffer.
 */
export function sendPost(
  url: string,
  body: OutgoingBody,
  opts: {
    dispatcher: Dispatcher;
    signal: AbortSignal;
    timeoutMs: number;
    headers: Record<string, string>;
  },
): Promise<Dispatcher.ResponseData> {
  return request(url, {
    method: 'POST',
    dispatcher: opts.dispatcher,
    signal: opts.signal,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    headers: { ...opts.headers, 'content-length': String(body.length) },
    body:
      body.chunks.length === 1 ? body.chunks[0] : Readable.from(body.chunks, { objectMode: false }),
  });
}
