import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/gateway/settings';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import {
  settingsIn,
  clearFaults,
  scriptFaults,
  startTestGateway,
  usageCount,
  usageRow,
  type TestGateway,
  simInit,
} from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterEach(async () => {
  await clearFaults(t.simUrl);
});
afterAll(async () => {
  await t.close();
});

interface ErrorReply {
  status: number;
  requestId: string | null;
  headers: Headers;
  error: { message: string; type: string; param: string | null; code: string | null };
}

async function generate(
  body: Record<string, unknown>,
  key: string | null = t.key,
): Promise<ErrorReply & { ok: boolean }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { error: ErrorReply['error'] };
  return {
    ok: res.ok,
    status: res.status,
    requestId: res.headers.get('x-request-id'),
    headers: res.headers,
    error: json.error,
  };
}

const base = { model: 'image-model-2', prompt: 'a small boat', quality: 'low' };

describe('401 INVALID_API_KEY', () => {
  it('for a missing key', async () => {
    const r = await generate(base, null);
    expect(r.status).toBe(401);
    expect(r.error.code).toBe('INVALID_API_KEY');
    expect(r.requestId).toMatch(/^req_/);
  });

  it('for an unknown key', async () => {
    expect((await generate(base, 'atl_notARealKey123456789012345678901234567890')).error.code).toBe(
      'INVALID_API_KEY',
    );
  });

  it('for a disabled key, and again once it is re-enabled it works', async () => {
    const keys = createKeysRepository(sqliteEngine(t.db));
    const { key, id } = await t.newKey('to-disable');
    await keys.setStatus(id, 'disabled');
    const r = await generate(base, key);
    expect([r.status, r.error.code]).toEqual([401, 'INVALID_API_KEY']);
    await keys.setStatus(id, 'active');
    expect((await generate(base, key)).status).toBe(200);
  });

  it('for a deleted key', async () => {
    const { key, id } = await t.newKey('to-delete');
    await createKeysRepository(sqliteEngine(t.db)).remove(id);
    const r = await generate(base, key);
    expect([r.status, r.error.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it("does not accept the OpenAI client's key format when it is not one of ours", async () => {
    const r = await generate(base, 'sk-proj-abcdefghijklmnopqrstuvwxyz');
    expect(r.status).toBe(401);
  });
});

describe('400 invalid_request_error names the parameter', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['transparent background', { background: 'transparent' }, 'background'],
    ['unknown background', { background: 'checkered' }, 'background'],
    ['n = 0', { n: 0 }, 'n'],
    ['n = 11', { n: 11 }, 'n'],
    ['n not an integer', { n: 1.5 }, 'n'],
    ['n as a string in JSON', { n: '2' }, 'n'],
    ['partial_images = 4', { stream: true, partial_images: 4 }, 'partial_images'],
    ['partial_images = -1', { stream: true, partial_images: -1 }, 'partial_images'],
    ['partial_images without stream', { partial_images: 2 }, 'partial_images'],
    [
      'output_compression = 101',
      { output_format: 'jpeg', output_compression: 101 },
      'output_compression',
    ],
    [
      'output_compression = -1',
      { output_format: 'webp', output_compression: -1 },
      'output_compression',
    ],
    [
      'output_compression with png',
      { output_format: 'png', output_compression: 50 },
      'output_compression',
    ],
    ['output_compression with the png default', { output_compression: 50 }, 'output_compression'],
    ['unknown output_format', { output_format: 'gif' }, 'output_format'],
    ['unknown quality', { quality: 'ultra' }, 'quality'],
    ['unknown moderation', { moderation: 'none' }, 'moderation'],
    ['unknown model', { model: 'dall-e-3' }, 'model'],
    ['missing model', { model: undefined }, 'model'],
    ['missing prompt', { prompt: undefined }, 'prompt'],
    ['empty prompt', { prompt: '' }, 'prompt'],
    ['stream not a boolean', { stream: 'yes' }, 'stream'],
    [
      'response_format url with stream',
      { response_format: 'url', stream: true },
      'response_format',
    ],
    ['unknown response_format', { response_format: 'xml' }, 'response_format'],
    ['input_fidelity', { input_fidelity: 'high' }, 'input_fidelity'],
    ['an unknown parameter (typo)', { quailty: 'high' }, 'quailty'],
  ];
  for (const [label, patch, param] of cases) {
    it(label, async () => {
      const r = await generate({ ...base, ...patch });
      expect(r.status).toBe(400);
      expect(r.error.type).toBe('invalid_request_error');
      expect(r.error.param).toBe(param);
      expect(r.error.message.length).toBeGreaterThan(10);
    });
  }

  it('a body that is not JSON', async () => {
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe(
      'invalid_request_error',
    );
  });

  it('records a rejected request once, with its error code and zero tokens', async () => {
    const r = await generate({ ...base, background: 'transparent' });
    const row = await usageRow(t, r.requestId!);
    expect(row).toMatchObject({
      status: 400,
      error_code: r.error.code,
      model: 'image-model-2',
      total_tokens: 0,
      cost_micros: 0,
    });
    expect(usageCount(t.db, r.requestId!)).toBe(1);
  });
});

describe('size rules of spec 8.1 at each boundary, both sides', () => {
  const rules: Array<[string, string, string]> = [
    ['max edge', '3840x1280', '3856x1296'],
    ['multiple of 16', '1024x1024', '1024x1032'],
    ['aspect ratio 3:1', '2400x800', '2416x800'],
    ['minimum pixels', '1024x640', '1024x624'],
    ['maximum pixels', '3840x2160', '3840x2176'],
  ];
  for (const [rule, ok, bad] of rules) {
    it(`${rule}: ${ok} passes, ${bad} is refused`, async () => {
      const good = await generate({ ...base, size: ok, output_format: 'jpeg' });
      expect(good.status).toBe(200);
      const refused = await generate({ ...base, size: bad });
      expect(refused.status).toBe(400);
      expect(refused.error.param).toBe('size');
      expect(refused.error.message).toContain(bad);
    });
  }

  for (const bad of ['1024', '1024x', 'x1024', 'big', '1024X1024', '-1024x1024']) {
    it(`a malformed size '${bad}' is refused`, async () => {
      const r = await generate({ ...base, size: bad });
      expect([r.status, r.error.param]).toEqual([400, 'size']);
    });
  }

  it('also in portrait: 2160x3840 passes', async () => {
    expect((await generate({ ...base, size: '2160x3840', output_format: 'jpeg' })).status).toBe(
      200,
    );
  });
});

describe('upstream failures', () => {
  it('429 usage_limit_reached with retry-after from the reset time', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'usage_limit', resetsInSeconds: 120 }]);
    const r = await generate(base);
    expect(r.status).toBe(429);
    expect(r.error.code).toBe('usage_limit_reached');
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(115);
    expect(retryAfter).toBeLessThanOrEqual(121);
    expect((await usageRow(t, r.requestId!)).status).toBe(429);
  });

  const failures: Array<[string, Record<string, unknown>, string]> = [
    ['an upstream 500', { kind: 'http_error', status: 500 }, 'upstream_http_error'],
    // Transient failures are retried twice by the gateway: three in a row reach the caller.
    [
      'an upstream 503 three times',
      { kind: 'http_error', status: 503, times: 3 },
      'upstream_http_error',
    ],
    // A connection the upstream drops after reading the request is a transient failure like a
    // 503: never sent again below dispatch, so three in a row reach the caller.
    ['a connection reset three times', { kind: 'reset', times: 3 }, 'upstream_network_error'],
    ['no image in the reply', { kind: 'no_image' }, 'upstream_no_image'],
    ['a content refusal', { kind: 'refusal' }, 'upstream_refused'],
    ['a silently downgraded size', { kind: 'downgrade' }, 'upstream_size_mismatch'],
  ];
  for (const [label, fault, code] of failures) {
    it(`502 Upstream request failed for ${label}, code ${code}`, async () => {
      await scriptFaults(t.simUrl, [fault]);
      const r = await generate({ ...base, size: '1536x1024' });
      expect(r.status).toBe(502);
      expect(r.error.message).toMatch(/^Upstream request failed/);
      expect(r.error.code).toBe(code);
      const row = await usageRow(t, r.requestId!);
      expect(row).toMatchObject({ status: 502, error_code: code });
    });
  }

  it('retries a single transient failure inside the gateway: the caller sees 200', async () => {
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    await scriptFaults(t.simUrl, [{ kind: 'http_error', status: 503 }]);
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(base),
    });
    expect(res.status).toBe(200);
    const { calls } = (await (
      await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))
    ).json()) as {
      calls: Array<{ status: number }>;
    };
    expect(calls.map((c) => c.status)).toEqual([503, 200]);
  });

  it('sends a request again at once when the upstream drops the connection before answering', async () => {
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    await scriptFaults(t.simUrl, [{ kind: 'reset' }]);
    const r = await generate(base);
    expect(r.status).toBe(200);
    // Not an upstream failure: the usage record says nothing went wrong.
    expect(await usageRow(t, r.requestId!)).toMatchObject({ status: 200, error_code: null });
  });

  it('does not retry a plain 500 (spec 7.2 retries only 502/503/504 and transport failures)', async () => {
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    await scriptFaults(t.simUrl, [{ kind: 'http_error', status: 500 }]);
    expect((await generate(base)).status).toBe(502);
    const { calls } = (await (
      await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))
    ).json()) as {
      calls: unknown[];
    };
    expect(calls).toHaveLength(1);
  });

  it('tells SDKs not to retry after the gateway has retried (no multiplied upstream calls)', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'http_error', status: 502, times: 3 }]);
    const r = await generate(base);
    expect(r.status).toBe(502);
    expect(r.error).toMatchObject({ code: 'upstream_http_error' });
    expect(r.headers.get('x-should-retry')).toBe('false');
  });

  it('times out a silent upstream after the configured timeout, without retrying', async () => {
    const settings = await settingsIn(t.db);
    await settings.set(SETTINGS.timeoutNormalMs, 1_000);
    try {
      await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
      await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 1_600 }]);
      const r = await generate(base);
      expect([r.status, r.error.code]).toEqual([502, 'upstream_timeout']);
      const { calls } = (await (
        await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))
      ).json()) as {
        calls: unknown[];
      };
      expect(calls).toHaveLength(1);
    } finally {
      await settings.reset(SETTINGS.timeoutNormalMs);
    }
  });

  it('tells SDKs not to retry a refusal (their retry would not help)', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'refusal' }]);
    const r = await generate(base);
    expect(r.headers.get('x-should-retry')).toBe('false');
  });

  it('n > 1 with one failed image is an error, never fewer images', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'http_error', status: 500 }]);
    const r = await generate({ ...base, n: 3 });
    expect(r.status).toBe(502);
    expect(r.error.code).toBe('upstream_partial_failure');
    const row = await usageRow(t, r.requestId!);
    expect(row.images).toBe(2);
    expect(row.output_tokens).toBeGreaterThan(0);
  });

  it('reports a failure mid-stream as an error event and records it', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'no_image' }]);
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...base, stream: true, partial_images: 1 }),
    });
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).toContain('upstream_no_image');
    const row = await usageRow(t, res.headers.get('x-request-id')!);
    expect(row).toMatchObject({ status: 502, error_code: 'upstream_no_image', stream: 1 });
  });
});
