import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';

export interface OutgoingBody {
  chunks: Buffer[];
  length: number;
}

/**
 * A connection the upstream closed before answering, within this long of the request going out,
 * is the keep-alive race: the server dropped an idle connection just as the pool reused it. The
 * request never reached it, so it goes out once more, on a new connection. A connection that
 * breaks later may have been answered in part (an image generated and billed), so it is not
 * sent again: that failure is the upstream's, and dispatch handles it.
 */
export const RESENT_WITHIN_MS = 1000;
const CONNECTION_DROPPED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * One upstream POST with the call's own timeouts (they depend on the image size). A body of
 * several chunks (a multipart edit, JSON with spliced base64) goes out as it is: the image bytes
 * are never copied into one buffer.
 */
export async function sendPost(
  url: string,
  body: OutgoingBody,
  opts: {
    dispatcher: Dispatcher;
    signal: AbortSignal;
    timeoutMs: number;
    headers: Record<string, string>;
  },
): Promise<Dispatcher.ResponseData> {
  const send = () =>
    request(url, {
      method: 'POST',
      dispatcher: opts.dispatcher,
      signal: opts.signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      headers: { ...opts.headers, 'content-length': String(body.length) },
      body:
        body.chunks.length === 1
          ? body.chunks[0]
          : Readable.from(body.chunks, { objectMode: false }),
    });
  const sentAt = performance.now();
  try {
    return await send();
  } catch (error) {
    const code = (error as { code?: string }).code;
    const quick = performance.now() - sentAt < RESENT_WITHIN_MS;
    if (!quick || opts.signal.aborted || !code || !CONNECTION_DROPPED.has(code)) throw error;
    return send();
  }
}
