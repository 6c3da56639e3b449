import { describe, expect, it, vi } from 'vitest';
import { createAdminClient } from './admin';
import { adminUrls } from './urls';
import { GatewayError } from './errors';
import { queryString, type FetchLike } from './request';

interface Call {
  url: string;
  init: RequestInit;
}

/** A stand-in for the network: what the admin client sends, and how it reads the answers. */
function fakeFetch(answer: (call: Call) => Response): { fetch: FetchLike; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    fetch: async (url, init = {}) => {
      const call = { url, init };
      calls.push(call);
      return answer(call);
    },
  };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'req_9' },
  });

const KEY = {
  id: 'key_1',
  name: 'app',
  group: 'default',
  prefix: 'AbCd1234',
  status: 'active',
  createdAt: 1,
  lastUsedAt: null,
  concurrencyLimit: null,
  fallbackLadder: false,
  requests: 0,
  costMicros: 0,
  builtIn: false,
  budgetMicros: null,
  budgetPeriod: null,
  rpmLimit: null,
  imagesPerDay: null,
  expiresAt: null,
  limitUse: { budgetUsedMicros: null, budgetResetsAt: null, imagesToday: 0, requestsLastMinute: 0 },
};

describe('admin client', () => {
  it('sends the studio header and a JSON body, and checks the answer against its schema', async () => {
    const net = fakeFetch(() => json(200, { key: 'atl_secret', record: KEY }));
    const admin = createAdminClient(net.fetch);
    const created = await admin.createKey({ name: 'app', concurrencyLimit: 2 });
    expect(created.key).toBe('atl_secret');
    const [call] = net.calls;
    expect(call?.url).toBe('/api/admin/keys');
    expect(call?.init.method).toBe('POST');
    expect(new Headers(call?.init.headers).get('x-atelier-studio')).toBe('1');
    expect(new Headers(call?.init.headers).get('content-type')).toBe('application/json');
    expect(JSON.parse(String(call?.init.body))).toEqual({ name: 'app', concurrencyLimit: 2 });
    expect(call?.init.credentials).toBe('same-origin');
  });

  it('turns a 400 into a GatewayError that names the field', async () => {
    const net = fakeFetch(() =>
      json(400, {
        error: {
          message: "Invalid 'allowedOrigins.1': an origin.",
          type: 'invalid_request_error',
          param: 'allowedOrigins.1',
          code: 'invalid_value',
        },
      }),
    );
    const error = await createAdminClient(net.fetch)
      .updateSettings({ allowedOrigins: ['http://a', 'http://b/x'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, param: 'allowedOrigins.1', requestId: 'req_9' });
  });

  it('raises a session doubt on a 401 and on no other status', async () => {
    const onUnauthorized = vi.fn();
    let status = 401;
    const net = fakeFetch(() =>
      json(status, { error: { message: 'no session', code: 'studio_session_required' } }),
    );
    const admin = createAdminClient(net.fetch, onUnauthorized);
    await expect(admin.keys()).rejects.toMatchObject({
      status: 401,
      code: 'studio_session_required',
    });
    expect(onUnauthorized).toHaveBeenCalledOnce();
    for (status of [400, 403, 404, 500]) {
      await expect(admin.keys()).rejects.toMatchObject({ status });
    }
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });

  it('refuses an answer that does not match the schema', async () => {
    const net = fakeFetch(() => json(200, { keys: [{ id: 'only an id' }] }));
    await expect(createAdminClient(net.fetch).keys()).rejects.toThrow('unexpected body');
  });

  it('puts usage filters in the query, leaving out the empty ones', async () => {
    const net = fakeFetch(() => json(200, { records: [], total: 0 }));
    await createAdminClient(net.fetch).usage({
      since: 1000,
      apiKeyId: 'key_1',
      model: undefined,
      status: 'error',
      limit: 25,
      offset: 50,
    });
    expect(net.calls[0]?.url).toBe(
      '/api/admin/usage?since=1000&apiKeyId=key_1&status=error&limit=25&offset=50',
    );
  });

  it('writes the URLs browsers load without fetch', () => {
    expect(adminUrls.thumb('img 1')).toBe('/api/admin/images/img%201/thumb');
    expect(adminUrls.usageCsv({ model: 'image-model-2', endpoint: '' })).toBe(
      '/api/admin/usage.csv?model=image-model-2',
    );
    expect(queryString({})).toBe('');
  });
});
