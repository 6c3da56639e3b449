import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyResponse } from '../../src/shared/admin';
import {
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

const studioGenerate = async (quality = 'low') => {
  const res = await studio.fetch('/v1/images/generations', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'image-model-2',
      prompt: 'a tin robot',
      size: '1024x1024',
      quality,
    }),
  });
  return {
    requestId: res.headers.get('x-request-id')!,
    status: res.status,
    body: (await res.json()) as { error?: { code: string; limit?: unknown } },
  };
};

describe('the studio budget on the Studio key', () => {
  it('GET /keys/studio makes the Studio key before the studio has used /v1, and answers the same one after', async () => {
    const first = (await studio.json<KeyResponse>('/api/admin/keys/studio')).record;
    expect(first).toMatchObject({
      name: 'Studio',
      builtIn: true,
      status: 'active',
      budgetMicros: null,
    });
    const made = await studioGenerate();
    expect(made.status).toBe(200);
    const row = await usageRow(t, made.requestId);
    // Another app's spend is not the studio's.
    const other = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'x',
        size: '1024x1024',
        quality: 'low',
      }),
    });
    await other.arrayBuffer();
    await usageRow(t, other.headers.get('x-request-id')!);
    const again = (await studio.json<KeyResponse>('/api/admin/keys/studio')).record;
    expect(again.id).toBe(first.id);
    expect(again.requests).toBe(1);
    expect(again.costMicros).toBe(row.cost_micros);
  });

  it('a monthly budget set on it is enforced on the studio’s own requests, before the upstream call', async () => {
    const { id } = (await studio.json<KeyResponse>('/api/admin/keys/studio')).record;
    // One cent: the next 1024x1024 high (about $0.13) would pass it.
    const set = await studio.json<KeyResponse>(`/api/admin/keys/${id}`, {
      method: 'PATCH',
      body: { budgetMicros: 10_000, budgetPeriod: 'month' },
    });
    expect(set.record).toMatchObject({ budgetMicros: 10_000, budgetPeriod: 'month' });
    expect(set.record.limitUse.budgetUsedMicros).toBeGreaterThan(0);
    const refused = await studioGenerate('high');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'budget_exceeded',
      limit: { name: 'budget', period: 'month', unit: 'usd', limit: 0.01 },
    });
    // Cleared, the studio spends again.
    await studio.json(`/api/admin/keys/${id}`, { method: 'PATCH', body: { budgetMicros: null } });
    expect((await studioGenerate()).status).toBe(200);
  });

  it('says so when the Studio key is disabled (the CLI can do that)', async () => {
    const { id } = (await studio.json<KeyResponse>('/api/admin/keys/studio')).record;
    t.db.prepare(`UPDATE api_keys SET status = 'disabled' WHERE id = ?`).run(id);
    const res = await studio.fetch('/api/admin/keys/studio');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /disabled/,
    );
    t.db.prepare(`UPDATE api_keys SET status = 'active' WHERE id = ?`).run(id);
  });
});
