import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { GatewayError } from './errors';
import { createRequest, type FetchLike } from './request';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const answering =
  (response: () => Response): FetchLike =>
  async () =>
    response();

const pointSchema = z.object({ x: z.number(), y: z.number() });

describe('the request function', () => {
  it('turns an error body into a GatewayError with status, param, code, type and request id', async () => {
    const request = createRequest(
      answering(() =>
        json(
          400,
          {
            error: {
              message: "Invalid 'n': at most 10.",
              type: 'invalid_request_error',
              param: 'n',
              code: 'invalid_value',
            },
          },
          { 'x-request-id': 'req_4' },
        ),
      ),
      () => {},
    );
    const error = await request.json(pointSchema, '/v1/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).toInfo()).toEqual({
      status: 400,
      message: "Invalid 'n': at most 10.",
      param: 'n',
      code: 'invalid_value',
      type: 'invalid_request_error',
      requestId: 'req_4',
      limit: null,
    });
  });

  it('names the request and status when a failing answer has no error body', async () => {
    const request = createRequest(
      answering(() => new Response('<html>Bad gateway</html>', { status: 502 })),
      () => {},
    );
    await expect(request.send('/api/admin/keys', { method: 'DELETE' })).rejects.toMatchObject({
      status: 502,
      message: 'DELETE /api/admin/keys answered 502',
      code: null,
    });
  });

  it('reports a gateway that did not answer, but lets an abort through as it is', async () => {
    const offline = createRequest(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(offline.send('/api/status')).rejects.toMatchObject({
      name: 'GatewayError',
      status: 0,
      message: 'The gateway did not answer. Is Atelier still running?',
    });

    const controller = new AbortController();
    controller.abort();
    const aborting = createRequest(async (_url, init) => {
      if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      return json(200, { x: 1, y: 2 });
    });
    const error = await aborting
      .send('/api/status', { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
  });

  it('raises a session doubt on every 401 except the session probe, and on no other status', async () => {
    const onUnauthorized = vi.fn();
    let status = 401;
    const request = createRequest(
      answering(() => json(status, { error: { code: 'studio_session_required' } })),
      onUnauthorized,
    );
    await expect(request.send('/api/admin/keys')).rejects.toMatchObject({ status: 401 });
    await expect(request.json(pointSchema, '/v1/images/generations')).rejects.toMatchObject({
      status: 401,
      code: 'studio_session_required',
    });
    expect(onUnauthorized).toHaveBeenCalledTimes(2);
    await expect(request.send('/api/admin/session', { probe: true })).rejects.toMatchObject({
      status: 401,
    });
    expect(onUnauthorized).toHaveBeenCalledTimes(2);
    for (status of [400, 403, 404, 429, 500, 502]) {
      await expect(request.send('/api/admin/keys')).rejects.toMatchObject({ status });
    }
    expect(onUnauthorized).toHaveBeenCalledTimes(2);
  });

  it('sends JSON bodies as JSON and forms as they are, with the studio header', async () => {
    const seen: RequestInit[] = [];
    const request = createRequest(async (_url, init = {}) => {
      seen.push(init);
      return json(200, { x: 1, y: 2 });
    });
    await request.json(pointSchema, '/a', { method: 'POST', body: { prompt: 'p' } });
    const form = new FormData();
    await request.json(pointSchema, '/b', { method: 'POST', body: form });
    await request.json(pointSchema, '/c');
    const [post, multipart, get] = seen.map((init) => ({
      ...init,
      headers: new Headers(init.headers),
    }));
    expect(post?.body).toBe('{"prompt":"p"}');
    expect(post?.headers.get('content-type')).toBe('application/json');
    expect(multipart?.body).toBe(form);
    expect(multipart?.headers.has('content-type')).toBe(false);
    expect(get?.body).toBeNull();
    expect(get?.method).toBe('GET');
    for (const init of [post, multipart, get]) {
      expect(init?.headers.get('x-atelier-studio')).toBe('1');
      expect(init?.credentials).toBe('same-origin');
    }
  });

  it('refuses an answer that is not JSON, or does not match its schema, saying where', async () => {
    const notJson = createRequest(answering(() => new Response('OK', { status: 200 })));
    await expect(notJson.json(pointSchema, '/api/status')).rejects.toThrow(
      'GET /api/status answered a body that is not JSON',
    );

    const wrong = createRequest(
      answering(() => json(200, { x: 1, y: 'two' }, { 'x-request-id': 'req_5' })),
    );
    const error = await wrong.json(pointSchema, '/api/point').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 200, requestId: 'req_5' });
    expect((error as GatewayError).message).toMatch(
      /^GET \/api\/point answered an unexpected body \(y: .*expected number/,
    );
  });
});
