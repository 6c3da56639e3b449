import type { Response } from 'express';

/**
 * How much of an image may wait in the reply's buffer before the upstream is paused. The socket's
 * own 16 KB mark would pause after nearly every 64 KB read, an event-loop round trip each time
 * for no memory worth saving; a few megabytes per request keeps memory bounded all the same.
 */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** Resolves when `res` can take more; never waits on a caller that has gone. */
export function writeWithBackpressure(res: Response, piece: Buffer): void | Promise<void> {
  // The upstream is still read to its end when the caller leaves: the image is billed and kept.
  if (res.destroyed || res.writableEnded) return;
  res.write(piece);
  if (res.writableLength <= MAX_QUEUED_BYTES) return;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
