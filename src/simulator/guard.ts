import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from './context';
import { SimHttpError } from './errors';
import { headerValue } from './http';

/** The header that carries the control credential (`Simulator.controlToken`). */
export const CONTROL_HEADER = 'x-atelier-sim-control';

/**
 * The simulator listens on loopback, where any web page can reach it: a page may POST a simple
 * request (text/plain) and, after DNS rebinding, read the answer. So, as the gateway does:
 * only its own loopback Host is served, no browser request is (no page has a reason to call
 * it; the OAuth pages are opened by navigation, which sends no Origin on GET), and the control
 * routes also need the per-run credential that only the process that started it knows.
 */
export function guardRequest(ctx: Ctx): void {
  const host = (headerValue(ctx.req, 'host') ?? '').toLowerCase();
  if (!ctx.state.hosts.has(host)) {
    throw new SimHttpError(
      403,
      'invalid_request_error',
      'forbidden_host',
      `Host '${host}' is not served here.`,
    );
  }
  const origin = headerValue(ctx.req, 'origin');
  if (origin !== undefined && !ctx.state.hosts.has(originHost(origin))) {
    throw new SimHttpError(
      403,
      'invalid_request_error',
      'forbidden_origin',
      'Browser origins are not served here.',
    );
  }
  if (
    ctx.url.pathname.startsWith('/__sim/') &&
    !sameSecret(headerValue(ctx.req, CONTROL_HEADER), ctx.state.controlToken)
  ) {
    throw new SimHttpError(
      401,
      'invalid_request_error',
      'control_credential_required',
      `The control API needs the ${CONTROL_HEADER} header with this run's credential.`,
    );
  }
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Host values of a loopback listener on `port`. */
export function loopbackHosts(host: string, port: number): Set<string> {
  const names = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  names.add(`${host.includes(':') ? `[${host}]` : host}:${port}`.toLowerCase());
  return names;
}
