import type { NextFunction, Request, Response } from 'express';
import type { Socket } from 'node:net';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import { scopeOf } from './requestScope';

/**
 * Bounds on clients that send slowly or not at all. The server's own request and socket timeouts
 * are off, because a 4K image may take five minutes to make and the connection sits silent all
 * that time; these bounds apply only while the gateway waits for the client, never while the
 * client waits for an image.
 */
export interface ClientTimeouts {
  /** From the connection (or the end of the last response) to the end of the request headers. */
  headersMs: number;
  /** The longest silence while a request body is still arriving (it was not validated yet). */
  bodyIdleMs: number;
  /**
   * After a reply sent before the whole body arrived (a 401, an early 400): how long the rest
   * may take to arrive in all. It is read and dropped, so an honest client that is mid-upload
   * can finish and read the reply; silences within it are bounded by bodyIdleMs as before the
   * reply. 60 s: an honest 50 MiB upload took more than 5 s on a loaded 2-core machine, and was
   * cut off before it could read its 400; one starved of CPU takes longer.
   */
  drainMs: number;
  /**
   * An idle keep-alive connection between requests. A client that reuses a connection just as
   * the server closes it gets ECONNRESET on a request it cannot safely resend (a POST). With
   * Node's own 5 s this happened to clients whose pools keep idle connections about as long
   * (Python's httpx 5 s) and to any client that read its reply late on a busy machine (undici
   * gives up a second before the server's `Keep-Alive: timeout` hint: a loaded CI run's burst of
   * POSTs met a socket the gateway had just closed). 65 s is longer than the pools of the
   * clients that call the gateway (httpx 5 s, aiohttp 15 s; undici follows the hint) and what
   * servers behind a 60 s balancer use so that the balancer gives up first. Idle connections
   * hold no request and cost a socket; the headers deadline bounds one that starts a request
   * and stalls.
   */
  keepAliveMs: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = {
  headersMs: 30_000,
  bodyIdleMs: 30_000,
  drainMs: 60_000,
  keepAliveMs: 65_000,
};

/** Node checks header deadlines on an interval: a tenth of the deadline, within 100 ms and 5 s. */
export function headersCheckIntervalMs(t: ClientTimeouts): number {
  return Math.min(5_000, Math.max(100, Math.floor(t.headersMs / 10)));
}

/**
 * The body-idle deadline and the bounded drain, per request. Runs first, before any parser has
 * read a byte of the body.
 */
export function slowClientGuard({ bodyIdleMs, drainMs, keepAliveMs }: ClientTimeouts) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const socket = req.socket;
    if (!req.complete) {
      // Node emits 'timeout' on the response of a socket that was silent this long. While the
      // body is still arriving that is a stalled upload; once it has arrived the silence is the
      // upstream making an image, so the deadline is lifted for the rest of the request.
      socket.setTimeout(bodyIdleMs);
      res.on('timeout', () => {
        if (req.complete) {
          socket.setTimeout(0);
          return;
        }
        bodyTooSlow(req, res, bodyIdleMs);
      });
      const lift = () => {
        if (!res.writableFinished) socket.setTimeout(0);
      };
      req.once('end', lift);
    }
    res.once('finish', () => {
      if (req.complete) return;
      // The reply went out before the body was in: Node reads and drops the rest (so the client
      // can read the reply), for at most drainMs. Node has just put the socket on its keep-alive
      // timer, as if the request were over; a client still uploading is bounded by the
      // body's own idle bound instead, and the keep-alive timer starts once the body is in.
      req.resume();
      socket.setTimeout(bodyIdleMs);
      const cutOff = setTimeout(() => socket.destroy(), drainMs);
      cutOff.unref();
      const stopCutOff = () => clearTimeout(cutOff);
      req.once('end', () => {
        stopCutOff();
        if (!socket.destroyed) socket.setTimeout(keepAliveMs);
      });
      socket.once('close', stopCutOff);
    });
    next();
  };
}

/** A 408 when the headers can still go, then the connection ends; otherwise only the latter. */
function bodyTooSlow(req: Request, res: Response, bodyIdleMs: number): void {
  const socket: Socket = req.socket;
  if (res.headersSent) {
    socket.destroy();
    return;
  }
  const error = new ApiError(
    408,
    `The request body stalled: nothing arrived for ${Math.round(bodyIdleMs / 1000)} s before it was complete.`,
    { type: ERROR_TYPES.invalidRequest, code: ERROR_CODES.requestTimeout },
  );
  scopeOf(res).answered(error);
  res.setHeader('connection', 'close');
  res.status(408).json(error.toBody());
  res.once('finish', () => socket.destroy());
}
