import type { Response } from 'express';
import type { ApiError } from '../errors';

/** Comment lines keep proxies and clients from timing out during multi-minute images. */
const KEEPALIVE_MS = 15_000;

export interface SseWriter {
  /** Writes one event; pieces are concatenated as is (base64 buffers pass through untouched). */
  event(name: string, pieces: Array<string | Buffer>): void;
  /** Forwards bytes as they are: a whole upstream event, in the pieces it arrived in. */
  raw(pieces: readonly Buffer[]): void;
  error(error: ApiError): void;
  end(): void;
  readonly open: boolean;
}

export function openSse(res: Response): SseWriter {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('connection', 'keep-alive');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  const writable = () => !res.writableEnded && !res.destroyed;
  const keepalive = setInterval(() => {
    if (writable()) res.write(': keepalive\n\n');
  }, KEEPALIVE_MS);
  keepalive.unref();
  res.on('close', () => clearInterval(keepalive));

  return {
    get open() {
      return writable();
    },
    event(name, pieces) {
      if (!writable()) return;
      res.cork();
      res.write(`event: ${name}\ndata: `);
      for (const piece of pieces) res.write(piece);
      res.write('\n\n');
      process.nextTick(() => res.uncork());
    },
    raw(pieces) {
      if (!writable()) return;
      if (pieces.length === 1) {
        res.write(pieces[0]!);
        return;
      }
      res.cork();
      for (const piece of pieces) res.write(piece);
      process.nextTick(() => res.uncork());
    },
    error(error) {
      res.locals.errorCode = error.code;
      res.locals.errorMessage = error.message;
      res.locals.streamStatus = error.status;
      if (!writable()) return;
      res.write(`event: error\ndata: ${JSON.stringify({ type: 'error', ...error.toBody() })}\n\n`);
    },
    end() {
      clearInterval(keepalive);
      if (writable()) res.end();
    },
  };
}
