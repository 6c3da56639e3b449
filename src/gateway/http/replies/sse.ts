import type { Response } from 'express';
import type { ApiError } from '../../core/errors';
import { scopeOf } from '../requestScope';
import { writeWithBackpressure } from './backpressure';

/** Comment lines keep proxies and clients from timing out during multi-minute images. */
const KEEPALIVE_MS = 15_000;

export interface SseWriter {
  /** Writes one event; pieces are concatenated as is (base64 buffers pass through untouched). */
  event(name: string, pieces: Array<string | Buffer>): void;
  /**
   * Starts an event whose data is written as it arrives (an image streamed through). Until its
   * `end`, nothing else goes out: keepalives are skipped and other events wait their turn.
   */
  begin(name: string, head: string): StreamedEvent;
  /** Forwards bytes as they are: a whole upstream event, in the pieces it arrived in. */
  raw(pieces: readonly Buffer[]): void;
  error(error: ApiError): void;
  end(): void;
  readonly open: boolean;
}

export interface StreamedEvent {
  /** Writes the next piece of the data; a promise is backpressure. */
  write(piece: Buffer): void | Promise<void>;
  /** Writes the rest of the data and ends the event. */
  end(rest: string): void;
}

export function openSse(res: Response): SseWriter {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('connection', 'keep-alive');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  const writable = () => !res.writableEnded && !res.destroyed;
  // While an event is being streamed, whatever else would be written waits here.
  let waiting: Array<() => void> | null = null;
  const keepalive = setInterval(() => {
    if (writable() && !waiting) res.write(': keepalive\n\n');
  }, KEEPALIVE_MS);
  keepalive.unref();
  res.on('close', () => clearInterval(keepalive));

  return {
    get open() {
      return writable();
    },
    event(name, pieces) {
      if (waiting) {
        waiting.push(() => this.event(name, pieces));
        return;
      }
      if (!writable()) return;
      // One writev for the event's pieces. Uncorked in the same tick: on Node 24 an end() that
      // comes while corked (the last event, then end) loses what the cork still held.
      res.cork();
      res.write(`event: ${name}\ndata: `);
      for (const piece of pieces) res.write(piece);
      res.write('\n\n');
      res.uncork();
    },
    begin(name, head) {
      if (waiting) throw new Error('an event is already being streamed');
      waiting = [];
      if (writable()) res.write(`event: ${name}\ndata: ${head}`);
      return {
        write: (piece) => writeWithBackpressure(res, piece),
        end: (rest) => {
          if (writable()) res.write(`${rest}\n\n`);
          const held = waiting ?? [];
          waiting = null;
          for (const write of held) write();
        },
      };
    },
    raw(pieces) {
      if (!writable()) return;
      if (pieces.length === 1) {
        res.write(pieces[0]!);
        return;
      }
      res.cork();
      for (const piece of pieces) res.write(piece);
      res.uncork();
    },
    error(error) {
      scopeOf(res).answered(error);
      if (!writable()) return;
      res.write(`event: error\ndata: ${JSON.stringify({ type: 'error', ...error.toBody() })}\n\n`);
    },
    end() {
      clearInterval(keepalive);
      if (writable()) res.end();
    },
  };
}
