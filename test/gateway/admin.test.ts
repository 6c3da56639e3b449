import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  CreateKeyResponse,
  KeyView,
  PricesResponse,
  SettingsResponse,
  UsageListResponse,
  UsageRecord,
  UsageTotalsResponse,
} from '../../src/shared/admin';
import { savedListenAddress } from '../../src/gateway';
import { SETTINGS } from '../../src/gateway/settings';
import {
  pricesIn,
  settingsIn,
  startTestGateway,
  studioLogin,
  usageRow,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
});
afterAll(async () => {
  await t.close();
});

const gen = { model: 'image-model-2', prompt: 'a tin robot', size: '1024x1024', quality: 'low' };

async function generate(key: string, body: Record<string, unknown> = gen) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id')! };
}

/** An admin call expected to fail: its status and error body. */
async function refused(path: string, method: string, body?: unknown) {
  const res = await studio.fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { error: { code: string; param: string | null } };
  return { status: res.status, code: json.error.code, param: json.error.param };
}

describe('keys', () => {
  it('creates a key, shows it once, and lists it with its spend', async () => {
    const created = await studio.json<CreateKeyResponse>('/api/admin/keys', {
      method: 'POST',
      body: { name: 'Blender plugin', group: 'default', concurrencyLimit: 2 },
    });
    expect(created.key).toMatch(/^atl_/);
    expect(created.record).toMatchObject({
      name: 'Blender plugin',
      group: 'default',
      status: 'active',
      concurrencyLimit: 2,
      fallbackLadder: false,
      requests: 0,
      costMicros: 0,
      builtIn: false,
    });
    expect(created.key.startsWith(`atl_${created.record.prefix}`)).toBe(true);

    const { requestId } = await generate(created.key);
    const row = await usageRow(t, requestId);
    const res = await studio.fetch('/api/admin/keys');
    const text = await res.text();
    expect(text).not.toContain(created.key);
    const listed = (JSON.parse(text) as { keys: KeyView[] }).keys.find(
      (k) => k.id === created.record.id,
    )!;
    expect(listed.requests).toBe(1);
    expect(listed.costMicros).toBe(row.cost_micros);
    expect(listed.costMicros).toBeGreaterThan(0);
    expect(listed.lastUsedAt).not.toBeNull();
  });

  it('renames, regroups, disables and enables a key; a disabled key gets 401 from /v1', async () => {
    const { key, record } = await studio.json<CreateKeyResponse>('/api/admin/keys', {
      method: 'POST',
      body: { name: 'ci' },
    });
    const patched = await studio.json<{ record: KeyView }>(`/api/admin/keys/${record.id}`, {
      method: 'PATCH',
      body: { name: 'ci runner', group: 'team', fallbackLadder: true, status: 'disabled' },
    });
    expect(patched.record).toMatchObject({
      name: 'ci runner',
      group: 'team',
      fallbackLadder: true,
      status: 'disabled',
    });
    expect((await generate(key)).status).toBe(401);
    await studio.json(`/api/admin/keys/${record.id}`, {
      method: 'PATCH',
      body: { status: 'active', group: 'default' },
    });
    expect((await generate(key)).status).toBe(200);
  });

  it('deletes a key for good', async () => {
    const { key, record } = await studio.json<CreateKeyResponse>('/api/admin/keys', {
      method: 'POST',
      body: { name: 'temporary' },
    });
    expect(await studio.json(`/api/admin/keys/${record.id}`, { method: 'DELETE' })).toEqual({
      ok: true,
    });
    const { keys } = await studio.json<{ keys: KeyView[] }>('/api/admin/keys');
    expect(keys.map((k) => k.id)).not.toContain(record.id);
    expect((await generate(key)).status).toBe(401);
    expect((await refused(`/api/admin/keys/${record.id}`, 'DELETE')).status).toBe(404);
    expect((await refused(`/api/admin/keys/${record.id}`, 'PATCH', { name: 'x' })).status).toBe(
      404,
    );
  });

  it('says which field is wrong', async () => {
    expect(await refused('/api/admin/keys', 'POST', {})).toMatchObject({
      status: 400,
      param: 'name',
    });
    expect(await refused('/api/admin/keys', 'POST', { name: 'x', colour: 'red' })).toMatchObject({
      status: 400,
      param: 'colour',
    });
    expect(
      await refused('/api/admin/keys', 'POST', { name: 'x', concurrencyLimit: 0 }),
    ).toMatchObject({ status: 400, param: 'concurrencyLimit' });
    expect(await refused('/api/admin/keys', 'POST', { name: ' ' })).toMatchObject({
      status: 400,
      param: 'name',
    });
  });

  it('protects the built-in Studio key from being disabled or deleted', async () => {
    const res = await studio.fetch('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(gen),
    });
    expect(res.status).toBe(200);
    const { keys } = await studio.json<{ keys: KeyView[] }>('/api/admin/keys');
    const builtIn = keys.find((k) => k.builtIn)!;
    const path = `/api/admin/keys/${builtIn.id}`;
    expect(await refused(path, 'DELETE')).toMatchObject({ status: 400, param: 'id' });
    expect(await refused(path, 'PATCH', { status: 'disabled' })).toMatchObject({
      status: 400,
      param: 'id',
    });
    const renamed = await studio.json<{ record: KeyView }>(path, {
      method: 'PATCH',
      body: { name: 'Studio (desk)' },
    });
    expect(renamed.record).toMatchObject({
      name: 'Studio (desk)',
      builtIn: true,
      status: 'active',
    });
  });
});

describe('usage', () => {
  let key: { key: string; id: string };
  const ids: string[] = [];

  beforeAll(async () => {
    key = await t.newKey('usage-app');
    for (const quality of ['low', 'medium'])
      ids.push((await generate(key.key, { ...gen, quality })).requestId);
    // A refused request is recorded too.
    ids.push((await generate(key.key, { ...gen, size: '1000x1000' })).requestId);
    for (const id of ids) await usageRow(t, id);
  });

  it('lists a key’s requests newest first with the filters and a total', async () => {
    const all = await studio.json<UsageListResponse>(`/api/admin/usage?apiKeyId=${key.id}`);
    expect(all.total).toBe(3);
    expect(all.records.map((r) => r.requestId)).toEqual([...ids].reverse());
    expect(all.records[0]).toMatchObject({ apiKeyId: key.id, apiKeyName: 'usage-app' });
    expect(all.records[0]).not.toHaveProperty('id');

    const errors = await studio.json<UsageListResponse>(
      `/api/admin/usage?apiKeyId=${key.id}&status=error`,
    );
    expect(errors.records.map((r) => [r.requestId, r.status])).toEqual([[ids[2], 400]]);
    const ok = await studio.json<UsageListResponse>(
      `/api/admin/usage?apiKeyId=${key.id}&status=200&endpoint=/images/generations`,
    );
    expect(ok.total).toBe(2);
    const page = await studio.json<UsageListResponse>(
      `/api/admin/usage?apiKeyId=${key.id}&limit=1&offset=1`,
    );
    expect([page.total, page.records.map((r) => r.requestId)]).toEqual([3, [ids[1]]]);
    const since = all.records[2]!.createdAt;
    const later = await studio.json<UsageListResponse>(
      `/api/admin/usage?apiKeyId=${key.id}&since=${since + 1}&until=${Date.now() + 1}`,
    );
    expect(later.records.every((r) => r.createdAt > since)).toBe(true);
  });

  it('refuses a bad filter, naming it', async () => {
    expect(await refused('/api/admin/usage?limit=5000', 'GET')).toMatchObject({
      status: 400,
      param: 'limit',
    });
    expect(await refused('/api/admin/usage?status=fine', 'GET')).toMatchObject({
      status: 400,
      param: 'status',
    });
  });

  it('totals by key, model and day', async () => {
    const byKey = await studio.json<UsageTotalsResponse>('/api/admin/usage/totals?groupBy=key');
    const mine = byKey.rows.find((r) => r.key === key.id)!;
    const rows = await Promise.all(ids.map((id) => usageRow(t, id)));
    expect(mine).toMatchObject({
      label: 'usage-app',
      requests: 3,
      errors: 1,
      images: 2,
      costMicros: rows.reduce((sum, r) => sum + r.cost_micros, 0),
      outputTokens: rows.reduce((sum, r) => sum + r.output_tokens, 0),
    });
    const byModel = await studio.json<UsageTotalsResponse>('/api/admin/usage/totals?groupBy=model');
    expect(byModel.rows.map((r) => r.key)).toContain('image-model-2');
    const byDay = await studio.json<UsageTotalsResponse>(
      '/api/admin/usage/totals?groupBy=day&utcOffsetMinutes=120',
    );
    expect(byDay.rows.at(-1)!.key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await refused('/api/admin/usage/totals?groupBy=week', 'GET')).param).toBe('groupBy');
  });

  it('exports CSV with every field escaped as RFC 4180 says', async () => {
    const tricky = 'Ann, "the boss"\nsecond line';
    const { requestId } = await generate(key.key, { ...gen, user: tricky });
    await usageRow(t, requestId);
    const res = await studio.fetch(`/api/admin/usage.csv?apiKeyId=${key.id}`);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename=".+\.csv"/);
    const table = parseCsv(await res.text());
    const header = table[0]!;
    expect(header.slice(0, 3)).toEqual(['created_at', 'request_id', 'endpoint']);
    const rows = table
      .slice(1)
      .map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i]])));
    expect(rows).toHaveLength(4);
    const row = rows.find((r) => r.request_id === requestId)!;
    expect(row.user).toBe(tricky);
    const record = await usageRow(t, requestId);
    expect(row.cost_micros).toBe(String(record.cost_micros));
    expect(row.api_key_name).toBe('usage-app');
    expect(row.stream).toBe('false');
  });
});

/** A strict RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else field += c;
  }
  expect(field).toBe('');
  expect(row).toEqual([]);
  return rows;
}

describe('the live request log', () => {
  it('streams each usage record as it is written', async () => {
    const controller = new AbortController();
    const res = await studio.fetch('/api/admin/events', { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const until = async (test: (text: string) => boolean) => {
      while (!test(buffer)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended: ${buffer}`);
        buffer += value;
      }
    };
    await until((text) => text.includes(': connected\n\n'));
    const key = await t.newKey('live');
    const { requestId } = await generate(key.key);
    await until((text) => text.includes(requestId));
    const event = buffer
      .split('\n\n')
      .find((block) => block.includes(requestId))!
      .split('\n');
    expect(event[0]).toBe('event: usage');
    const record = JSON.parse(event[1]!.slice('data: '.length)) as UsageRecord;
    expect(record).toMatchObject({ requestId, apiKeyId: key.id, apiKeyName: 'live', status: 200 });
    expect(record.outputTokens).toBeGreaterThan(0);
    controller.abort();
  });
});

describe('settings', () => {
  afterEach(async () => {
    const settings = await settingsIn(t.db);
    for (const setting of Object.values(SETTINGS)) {
      if (setting !== SETTINGS.studioKeyId) await settings.reset(setting);
    }
  });

  it('reads every setting with where the server runs', async () => {
    const body = await studio.json<SettingsResponse>('/api/admin/settings');
    expect(body.settings).toEqual({
      strictDelivery: true,
      fallbackLadder: false,
      injectImageTool: true,
      contentFilter: 'block',
      bridgeModel: 'gpt-5',
      timeoutNormalMs: 120_000,
      timeoutLargeMs: 300_000,
      allowedOrigins: [],
      keepApiImages: true,
      serverHost: '127.0.0.1',
      serverPort: 8787,
    });
    expect(body.server).toEqual({
      address: t.url,
      host: '127.0.0.1',
      port: t.gateway.port,
      dataDir: t.dataDir,
    });
  });

  it('changes some and leaves the rest; the next request sees the change', async () => {
    const origin = 'http://localhost:4000';
    const models = () =>
      fetch(`${t.url}/v1/models`, { headers: { authorization: `Bearer ${t.key}`, origin } });
    expect((await models()).status).toBe(403);
    const body = await studio.json<SettingsResponse>('/api/admin/settings', {
      method: 'PUT',
      body: { keepApiImages: false, allowedOrigins: [origin], timeoutLargeMs: 600_000 },
    });
    expect(body.settings).toMatchObject({
      keepApiImages: false,
      allowedOrigins: [origin],
      timeoutLargeMs: 600_000,
      strictDelivery: true,
    });
    expect((await models()).status).toBe(200);
    expect(
      (await studio.json<SettingsResponse>('/api/admin/settings')).settings.keepApiImages,
    ).toBe(false);
  });

  it('saves the address for the next start, where the desktop app and atelier serve read it', async () => {
    const body = await studio.json<SettingsResponse>('/api/admin/settings', {
      method: 'PUT',
      body: { serverHost: '::1', serverPort: 9123 },
    });
    expect(body.settings).toMatchObject({ serverHost: '::1', serverPort: 9123 });
    // Where it runs now is unchanged until it starts again.
    expect(body.server).toMatchObject({ host: '127.0.0.1', port: t.gateway.port });
    expect(await savedListenAddress(t.dataDir)).toEqual({ host: '::1', port: 9123 });
  });

  it('refuses a bad value or an unknown setting, naming it, and changes nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ timeoutNormalMs: 5 }, 'timeoutNormalMs'],
      [{ keepApiImages: 'yes' }, 'keepApiImages'],
      [{ contentFilter: 'warn' }, 'contentFilter'],
      [{ allowedOrigins: ['http://ok.example', 'not an origin'] }, 'allowedOrigins.1'],
      [{ strictDelivery: false, port: 9000 }, 'port'],
      // The studio never opens the gateway to the network: that is a command-line act.
      [{ serverHost: '0.0.0.0' }, 'serverHost'],
      [{ serverPort: 70_000 }, 'serverPort'],
      [{ serverPort: 80.5 }, 'serverPort'],
    ];
    for (const [body, param] of cases) {
      expect(await refused('/api/admin/settings', 'PUT', body)).toEqual({
        status: 400,
        code: 'invalid_value',
        param,
      });
    }
    expect(
      (await studio.json<SettingsResponse>('/api/admin/settings')).settings.strictDelivery,
    ).toBe(true);
  });
});

describe('prices', () => {
  afterAll(async () => {
    await (await pricesIn(t.db)).set('image-model-2', { imageOutput: 30_000_000 });
  });

  it('lists dollars per 1M tokens as decimal strings', async () => {
    const { prices } = await studio.json<PricesResponse>('/api/admin/prices');
    expect(prices.find((p) => p.model === 'image-model-2')).toMatchObject({
      textInput: '5.00',
      imageInput: '8.00',
      textOutput: '10.00',
      imageOutput: '30.00',
    });
  });

  it('prices the next request with a changed price', async () => {
    const { prices } = await studio.json<PricesResponse>('/api/admin/prices/image-model-2', {
      method: 'PUT',
      body: { imageOutput: '60.5' },
    });
    expect(prices.find((p) => p.model === 'image-model-2')!.imageOutput).toBe('60.50');
    const row = await usageRow(t, (await generate(t.key)).requestId);
    const expected = Math.round(
      (row.input_text_tokens * 5_000_000 +
        row.input_image_tokens * 8_000_000 +
        row.output_text_tokens * 10_000_000 +
        row.output_image_tokens * 60_500_000) /
        1_000_000,
    );
    expect(row.output_image_tokens).toBeGreaterThan(0);
    expect(row.cost_micros).toBe(expected);
  });

  it('adds a model only with all four prices, and refuses what cannot be stored', async () => {
    expect(
      await refused('/api/admin/prices/house-model', 'PUT', { imageOutput: '1' }),
    ).toMatchObject({ status: 400, param: 'model' });
    const { prices } = await studio.json<PricesResponse>('/api/admin/prices/house-model', {
      method: 'PUT',
      body: { textInput: '0.25', imageInput: '0.5', textOutput: '1', imageOutput: '0.000001' },
    });
    expect(prices.find((p) => p.model === 'house-model')).toMatchObject({
      textInput: '0.25',
      imageOutput: '0.000001',
    });
    expect(
      await refused('/api/admin/prices/image-model-2', 'PUT', { imageOutput: '1.2345678' }),
    ).toMatchObject({ status: 400, param: 'imageOutput' });
    expect(
      await refused('/api/admin/prices/image-model-2', 'PUT', { imageOutput: -1 }),
    ).toMatchObject({ status: 400, param: 'imageOutput' });
  });
});
