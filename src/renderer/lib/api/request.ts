/**
 * How the studio calls the gateway: one request function for the image and admin clients. Same
 * origin (the gateway serves the studio), no API key: the HttpOnly session cookie authenticates
 * both /api/admin and /v1 (as the built-in Studio key), and `x-atelier-studio: 1` is the header a
 * page on another origin cannot send (docs/admin-api.md).
 */
import '../zodConfig';
import type { z } from 'zod';
import { STUDIO_HEADER } from '../../../shared/admin';
import { GatewayError, toGatewayError } from './errors';
import { doubtSession } from './session';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method?: Method;
  /** Sent as JSON, or as multipart for a FormData (the browser writes its boundary). */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** The session check itself, whose 401 is an answer rather than a doubt. */
  probe?: boolean;
}

export interface Requester {
  /** The answer of a request that succeeded (2xx); any other ends in a GatewayError. */
  send(path: string, options?: RequestOptions): Promise<Response>;
  /** The JSON answer of a request that succeeded, checked against `schema`. */
  json<S extends z.ZodType>(
    schema: S,
    path: string,
    options?: RequestOptions,
  ): Promise<z.output<S>>;
}

/**
 * `onUnauthorized` hears every 401 (the studio session may have ended: the session store
 * confirms with a probe).
 */
export function createRequest(
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
  onUnauthorized: () => void = doubtSession,
): Requester {
  async function send(path: string, options: RequestOptions = {}): Promise<Response> {
    const method = options.method ?? 'GET';
    const headers = new Headers(options.headers);
    headers.set(STUDIO_HEADER, '1');
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    const form = options.body instanceof FormData;
    if (options.body !== undefined && !form) headers.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await fetchImpl(path, {
        method,
        headers,
        body: form
          ? (options.body as FormData)
          : options.body === undefined
            ? null
            : JSON.stringify(options.body),
        credentials: 'same-origin',
        signal: options.signal ?? null,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new GatewayError('The gateway did not answer. Is Atelier still running?', 0);
    }
    if (!response.ok) {
      if (response.status === 401 && !options.probe) onUnauthorized();
      const body: unknown = await response.json().catch(() => undefined);
      throw toGatewayError(
        response.status,
        body,
        `${method} ${path} answered ${response.status}`,
        response.headers.get('x-request-id'),
      );
    }
    return response;
  }

  return {
    send,
    async json(schema, path, options = {}) {
      const response = await send(path, options);
      return readJson(schema, response, `${options.method ?? 'GET'} ${path}`);
    },
  };
}

/** The JSON body of `response` checked against `schema`; `what` names the request in errors. */
export async function readJson<S extends z.ZodType>(
  schema: S,
  response: Response,
  what: string,
): Promise<z.output<S>> {
  const refuse = (problem: string) =>
    new GatewayError(
      `${what} answered ${problem}`,
      response.status,
      null,
      null,
      null,
      response.headers.get('x-request-id'),
    );
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw refuse('a body that is not JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw refuse(`an unexpected body (${describeIssues(parsed.error)})`);
  return parsed.data;
}

/** The first problem zod found, where it is (`data.0.b64_json: ...`), and how many more. */
export function describeIssues(error: z.ZodError): string {
  const [first] = error.issues;
  if (!first) return 'no details';
  const where = first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  const more = error.issues.length > 1 ? ` and ${error.issues.length - 1} more` : '';
  return `${where}${first.message}${more}`;
}

/** A query string from defined, non-empty values (`?a=1&b=x`, or '' when there are none). */
export function queryString(values: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === '') continue;
    params.set(name, String(value));
  }
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}
