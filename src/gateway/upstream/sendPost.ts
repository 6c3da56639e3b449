import { Readable } from 'node:stream';
import { Dispatcher, request } from 'undici';

export interface OutgoingBody {
  chunks: Buffer[];
  length: number;
}

/**
 * A POST that failed before undici handed any of its bytes to a connection: the upstream provably
 * never received it. Dispatch may send it again (retryPolicy.ts); nothing below dispatch does.
 */
export class UnsentRequestError extends Error {
  readonly code: string | undefined;
  constructor(override readonly cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`the request was never written to the upstream (${message})`);
    this.name = 'UnsentRequestError';
    this.code = (cause as { code?: string } | null)?.code;
  }
}

/**
 * Watches one request through undici: `onConnect` is undici's report that the request was put on
 * a connection and its bytes are about to be written (a new connection or a reused keep-alive
 * one). Until then nothing of it can have reached the upstream.
 */
class WriteWatch extends Dispatcher {
  written = false;
  constructor(private readonly inner: Dispatcher) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
    // A proxy, not a copy: undici's handlers keep state on themselves (the abort callback set in
    // onConnect is read by their signal listener), so every call runs on the handler itself.
    const watched = new Proxy(handler, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'onConnect') return value.bind(target);
        return (...args: unknown[]) => {
          this.written = true;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    return this.inner.dispatch(options, watched);
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }

  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * One upstream POST with the call's own timeouts (they depend on the image size). A body of
 * several chunks (a multipart edit, JSON with spliced base64) goes out as it is: the image bytes
 * are never copied into one buffer.
 *
 * It is sent exactly once. A failure before any byte went out is thrown as UnsentRequestError;
 * every other failure as undici reports it (the upstream may have read the whole request and
 * generated, and billed, an image: only dispatch decides whether to send it again).
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
  const watch = new WriteWatch(opts.dispatcher);
  try {
    return await request(url, {
      method: 'POST',
      dispatcher: watch,
      signal: opts.signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      headers: { ...opts.headers, 'content-length': String(body.length) },
      body:
        body.chunks.length === 1
          ? body.chunks[0]
          : Readable.from(body.chunks, { objectMode: false }),
    });
  } catch (error) {
    if (!watch.written && !opts.signal.aborted) throw new UnsentRequestError(error);
    throw error;
  }
}
