import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, studioLogin, type TestGateway } from '../support/gateway';

// The usage row names the id the upstream gave each of its answers (`x-request-id`): here the
// built-in simulator's, over HTTP, as a real upstream's or a team gateway's would be.
let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

describe('the upstream request id in the usage log', () => {
  it("records each upstream call's id, shows it on the admin API and in the CSV", async () => {
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'two kites', quality: 'low', n: 2 }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const requestId = res.headers.get('x-request-id')!;

    // n = 2 is two upstream calls: two ids, each the simulator's, neither this gateway's.
    await expect
      .poll(() =>
        t.db
          .prepare('SELECT upstream_request_id FROM usage_records WHERE request_id = ?')
          .pluck()
          .get(requestId),
      )
      .toMatch(/^req_[^,]+,req_[^,]+$/);
    const stored = t.db
      .prepare('SELECT upstream_request_id FROM usage_records WHERE request_id = ?')
      .pluck()
      .get(requestId) as string;
    const ids = stored.split(',');
    expect(new Set(ids).size).toBe(2);
    expect(ids).not.toContain(requestId);

    const studio = await studioLogin(t);
    const { records } = await studio.json<{ records: Array<Record<string, unknown>> }>(
      '/api/admin/usage',
    );
    expect(records.find((r) => r.requestId === requestId)).toMatchObject({
      upstreamRequestId: stored,
    });
    const csv = await (await studio.fetch('/api/admin/usage.csv')).text();
    const [header, ...rows] = csv.trimEnd().split('\r\n');
    const column = header!.split(',').indexOf('upstream_request_id');
    expect(column).toBeGreaterThan(0);
    const row = rows.find((line) => line.includes(requestId))!;
    // The ids hold a comma: the field is quoted.
    expect(row).toContain(`"${stored}"`);
  });

  it("records a failing answer's id too: the upstream's own row of the refusal", async () => {
    // Every call fails with a 400 the gateway does not retry: one upstream answer, one id.
    t.gateway.simulator!.faults.add({
      kind: 'http_error',
      status: 400,
      code: 'invalid_value',
      message: 'no',
      times: 1,
      match: { promptIncludes: 'refused kite' },
    });
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'a refused kite', quality: 'low' }),
    });
    expect(res.status).toBe(400);
    await res.arrayBuffer();
    const requestId = res.headers.get('x-request-id')!;
    await expect
      .poll(() =>
        t.db
          .prepare(
            'SELECT status, upstream_request_id AS id FROM usage_records WHERE request_id = ?',
          )
          .get(requestId),
      )
      .toMatchObject({ status: 400, id: expect.stringMatching(/^req_[^,]+$/) });
  });
});
