import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import { DRAIN_RETRY_AFTER_S } from '../core/tunables';

/**
 * The gateway's drain: from the first stop signal on, it takes no new work (a load balancer sees
 * /healthz turn 503 and sends new requests elsewhere) while the requests it holds finish.
 */
export interface Drain {
  readonly draining: boolean;
  start(): void;
}

export function createDrain(): Drain {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    start() {
      draining = true;
    },
  };
}

/**
 * New /v1 work while draining: 503 with Retry-After, before the key check and the usage record
 * (nothing was admitted, so nothing is billed), and the connection closed after the answer so
 * the client's next try opens a new one, which a balancer routes to another instance.
 */
export function refuseWhileDraining(drain: Drain) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if (!drain.draining) {
      next();
      return;
    }
    res.setHeader('connection', 'close');
    next(
      new ApiError(
        503,
        `This gateway is shutting down and takes no new requests; retry in ${DRAIN_RETRY_AFTER_S} s` +
          ' (behind a load balancer, another instance answers).',
        {
          type: ERROR_TYPES.server,
          code: ERROR_CODES.draining,
          headers: { 'retry-after': String(DRAIN_RETRY_AFTER_S) },
        },
      ),
    );
  };
}
