import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** The Host values this server answers to: its own loopback names on its own port. */
export function allowedHosts(bindHost: string, port: number): Set<string> {
  const hosts = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  if (!isLoopbackHost(bindHost))
    hosts.add(`${bindHost.includes(':') ? `[${bindHost}]` : bindHost}:${port}`);
  else if (bindHost.startsWith('127.')) hosts.add(`${bindHost}:${port}`);
  return hosts;
}

/**
 * DNS-rebinding guard: a web page that points its own name at 127.0.0.1 still sends its own name
 * as Host, so anything but our own host:port is refused before routing.
 */
export function hostGuard(allowed: ReadonlySet<string>) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowed.has(host)) {
      next(
        new ApiError(
          403,
          `Host '${host || '(none)'}' is not allowed: this server answers only to its own loopback address.`,
          {
            type: ERROR_TYPES.permission,
            code: ERROR_CODES.forbiddenHost,
          },
        ),
      );
      return;
    }
    next();
  };
}
