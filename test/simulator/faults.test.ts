import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import type { Fault, SimCall, Simulator } from '../../src/simulator';
import {
  CLIENT_ID,
  decode,
  login,
  postJson,
  readSse,
  simControl,
  subscriptionHeaders,
  tokenForm,
} from './helpers';
import type { Login } from './helpers';

let sim: Simulator;
let auth: Login;
let images: string;
let native: string;
let bridge: string;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  auth = await login(sim);
  images = `${sim.url}/v1/images/generations`;
  native = `${sim.url}/backend-api/codex/images/generations`;
  bridge = `${sim.url}/backend-api/codex/responses`;
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.calls.length = 0;
});

type Json = Record<string, unknown>;
const imageBody = (prompt = 'fault test', extra: Json = {}): Json => ({
  model: 'image-model-2',
  prompt,
  quality: 'low',
  ...extra,
});

const bridgeBody = (prompt: string, size = '1024x1024'): Json => ({
  model: 'agent-model-1',
  instructions: 'Make images.',
  input: [{ role: 'user', content: [{ type: 'input_text', text: prompt }] }],
  tools: [{ type: 'image_generation', size, quality: 'high', partial_images: 1 }],
  stream: true,
  store: false,
});

async function errorOf(response: Response): Promise<Json> {
  return ((await response.json()) as { error: Json }).error;
}

describe('scripted faults', () => {
  it('usage_limit: 429 with plan, reset times and window headers, for the matching account only', async () => {
    const other = await login(sim);
    sim.faults.add({
      kind: 'usage_limit',
      resetsInSeconds: 120,
      match: { accountId: auth.accountId },
    });
    const untouched = await postJson(native, imageBody(), subscriptionHeaders(other));
    expect(untouched.status).toBe(200);
    const limited = await postJson(native, imageBody(), subscriptionHeaders(auth));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('120');
    expect(limited.headers.get('x-codex-primary-used-percent')).toBe('100');
    expect(limited.headers.get('x-codex-primary-reset-after-seconds')).toBe('120');
    expect(limited.headers.get('x-codex-primary-window-minutes')).toBe('300');
    const error = await errorOf(limited);
    expect(error).toMatchObject({
      type: 'usage_limit_reached',
      code: 'usage_limit_reached',
      plan_type: 'pro',
      resets_in_seconds: 120,
    });
    expect(Number(error.resets_at)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 119);
    expect((await postJson(native, imageBody(), subscriptionHeaders(auth))).status).toBe(200);
    const nativeCalls = sim.calls.filter((c) => c.kind === 'native.generate');
    expect(nativeCalls.map((c) => [c.status, c.fault])).toEqual([
      [200, undefined],
      [429, 'usage_limit'],
      [200, undefined],
    ]);
  });

  it('http_error: any status with a provider-style body, used up after `times`', async () => {
    sim.faults.add({ kind: 'http_error', status: 503, times: 2 });
    for (let i = 0; i < 2; i += 1) {
      const response = await postJson(images, imageBody());
      expect(response.status).toBe(503);
      expect(await errorOf(response)).toMatchObject({
        type: 'server_error',
        code: 'server_is_overloaded',
      });
    }
    expect((await postJson(images, imageBody())).status).toBe(200);
    sim.faults.add({
      kind: 'http_error',
      status: 400,
      code: 'unsupported_value',
      param: 'quality',
    });
    const bad = await postJson(images, imageBody());
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({
      type: 'invalid_request_error',
      code: 'unsupported_value',
      param: 'quality',
    });
  });

  it('reset: the socket closes with no response', async () => {
    sim.faults.add({ kind: 'reset' });
    await expect(postJson(images, imageBody())).rejects.toThrow();
    expect(sim.calls[0]!.fault).toBe('reset');
    expect(sim.calls[0]!.status).toBeUndefined();
    expect((await postJson(images, imageBody())).status).toBe(200);
  });

  it('reset with afterEvents: the stream breaks after that many events', async () => {
    sim.faults.add({ kind: 'reset', afterEvents: 1 });
    const response = await postJson(
      images,
      imageBody('mid-stream', { stream: true, partial_images: 3 }),
    );
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('reset with afterBytes: a JSON reply breaks off after that many bytes', async () => {
    sim.faults.add({ kind: 'reset', afterBytes: 5000 });
    const response = await postJson(images, imageBody('cut off'));
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(sim.calls[0]!.fault).toBe('reset');
  });

  it('slow: the response headers wait for delayMs', async () => {
    sim.faults.add({ kind: 'slow', delayMs: 300 });
    const started = performance.now();
    const response = await postJson(images, imageBody());
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(response.status).toBe(200);
  });

  it('refusal: Images API 400 moderation_blocked; bridge text with no image', async () => {
    sim.faults.add({ kind: 'refusal' }, { kind: 'refusal', match: { path: '/responses' } });
    const refused = await postJson(images, imageBody());
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({
      type: 'image_generation_user_error',
      code: 'moderation_blocked',
    });
    const events = await readSse(
      await postJson(bridge, bridgeBody('refuse me'), subscriptionHeaders(auth)),
    );
    const types = events.map((e) => e.event);
    expect(types).toContain('response.output_text.delta');
    expect(types).not.toContain('response.image_generation_call.partial_image');
    const output = (events.at(-1)!.data.response as { output: Json[] }).output;
    expect(output.map((o) => o.type)).toEqual(['message']);
  });

  it('no_image: 200 with empty data; bridge completes without an image item', async () => {
    sim.faults.add({ kind: 'no_image', times: 2 });
    const response = await postJson(images, imageBody());
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toEqual([]);
    const events = await readSse(
      await postJson(bridge, bridgeBody('nothing'), subscriptionHeaders(auth)),
    );
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.completed',
    ]);
    expect((events[2]!.data.response as { output: unknown[] }).output).toEqual([]);
  });

  it('downgrade: a smaller image than asked, echoed as size and quality auto', async () => {
    sim.faults.add({ kind: 'downgrade', times: 2 });
    const response = await postJson(
      native,
      imageBody('big square', { size: '2048x2048' }),
      subscriptionHeaders(auth),
    );
    const body = (await response.json()) as {
      size: string;
      quality: string;
      data: { b64_json: string }[];
    };
    expect(body).toMatchObject({ size: 'auto', quality: 'auto' });
    expect(await decode(body.data[0]!.b64_json)).toMatchObject({ width: 1254, height: 1254 });

    const events = await readSse(
      await postJson(bridge, bridgeBody('big landscape', '3840x2160'), subscriptionHeaders(auth)),
    );
    const final = events.at(-1)!.data.response as { tools: Json[]; output: Json[] };
    expect(final.tools[0]).toMatchObject({ size: 'auto', quality: 'auto' });
    expect(await decode(String(final.output[0]!.result))).toMatchObject({
      width: 1672,
      height: 941,
    });
  });

  it('matches on prompt text and on path; unmatched faults stay pending', async () => {
    sim.faults.add({ kind: 'http_error', status: 502, match: { promptIncludes: 'cursed' } });
    expect((await postJson(images, imageBody('a fine day'))).status).toBe(200);
    expect(sim.faults.pending).toHaveLength(1);
    expect((await postJson(images, imageBody('a cursed day'))).status).toBe(502);
    expect(sim.faults.pending).toHaveLength(0);
  });

  it('reaches OAuth only when match.path names it', async () => {
    sim.faults.add({ kind: 'http_error', status: 503 });
    const fields = {
      grant_type: 'refresh_token',
      client_id: CLIENT_ID,
      refresh_token: auth.refreshToken,
    };
    const ok = await fetch(`${sim.url}/oauth/token`, tokenForm(fields));
    expect(ok.status).toBe(200);
    auth = {
      ...auth,
      refreshToken: ((await ok.json()) as { refresh_token: string }).refresh_token,
    };
    sim.faults.clear();
    sim.faults.add({
      kind: 'http_error',
      status: 401,
      code: 'refresh_token_expired',
      match: { path: '/oauth/token' },
    });
    const failed = await fetch(
      `${sim.url}/oauth/token`,
      tokenForm({ ...fields, refresh_token: auth.refreshToken }),
    );
    expect(failed.status).toBe(401);
    expect((await errorOf(failed)).code).toBe('refresh_token_expired');
  });
});

describe('control API over HTTP', () => {
  it('adds, lists and clears faults; lists and clears calls', async () => {
    const faults: Fault[] = [{ kind: 'http_error', status: 500, times: 3 }];
    const added = await postJson(`${sim.url}/__sim/faults`, { faults }, simControl(sim));
    expect(added.status).toBe(200);
    const listed = (await (
      await fetch(`${sim.url}/__sim/faults`, { headers: simControl(sim) })
    ).json()) as { pending: Fault[] };
    expect(listed.pending).toEqual([{ kind: 'http_error', status: 500, times: 3 }]);
    expect((await postJson(images, imageBody())).status).toBe(500);
    expect(
      (await fetch(`${sim.url}/__sim/faults`, { method: 'DELETE', headers: simControl(sim) }))
        .status,
    ).toBe(200);
    expect((await postJson(images, imageBody())).status).toBe(200);

    const calls = (await (
      await fetch(`${sim.url}/__sim/calls`, { headers: simControl(sim) })
    ).json()) as { calls: SimCall[] };
    expect(calls.calls.map((c) => [c.kind, c.status, c.fault])).toEqual([
      ['images.generate', 500, 'http_error'],
      ['images.generate', 200, undefined],
    ]);
    expect(
      (await fetch(`${sim.url}/__sim/calls`, { method: 'DELETE', headers: simControl(sim) }))
        .status,
    ).toBe(200);
    expect(sim.calls).toHaveLength(0);
  });

  it('rejects malformed faults with 400', async () => {
    const response = await postJson(
      `${sim.url}/__sim/faults`,
      { faults: [{ kind: 'explode' }] },
      simControl(sim),
    );
    expect(response.status).toBe(400);
    expect(sim.faults.pending).toHaveLength(0);
  });
});

describe('calls of one account at once', () => {
  it('counts each key apart, from arrival until its connection ends', async () => {
    const held = new AbortController();
    // Held upstream until the client goes away: the counts are read while every call is there.
    sim.faults.add({ kind: 'slow', delayMs: 120_000, times: 4 });
    const send = (key: string) =>
      fetch(images, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(imageBody()),
        signal: held.signal,
      }).catch(() => null);
    const sent = [send('sk-at-once-a'), send('sk-at-once-a'), send('sk-at-once-a')];
    sent.push(send('sk-at-once-b'));
    await expect
      .poll(() => [sim.atOnce('sk-at-once-a').now, sim.atOnce('sk-at-once-b').now])
      .toEqual([3, 1]);
    held.abort();
    await Promise.all(sent);
    await expect
      .poll(() => [sim.atOnce('sk-at-once-a'), sim.atOnce('sk-at-once-b')])
      .toEqual([
        { now: 0, most: 3 },
        { now: 0, most: 1 },
      ]);
    // A call that finishes counts down too; a key never seen has had none.
    const done = await postJson(images, imageBody(), { authorization: 'Bearer sk-at-once-a' });
    expect(done.status).toBe(200);
    await done.arrayBuffer();
    await expect.poll(() => sim.atOnce('sk-at-once-a')).toEqual({ now: 0, most: 3 });
    expect(sim.atOnce('sk-never-seen')).toEqual({ now: 0, most: 0 });
  });
});
