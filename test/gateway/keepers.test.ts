import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STUDIO_RUN_HEADER,
  type ImageResponse,
  type ImagesPage,
  type StudioRunsResponse,
  type UsageListResponse,
  type UsageTotal,
} from '../../src/shared/admin';
import {
  clearFaults,
  keptImages,
  scriptFaults,
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

/** A Generate run as the studio sends it (its session, no key); the request id. */
async function studioGenerate(prompt: string, n: number, headers = {}): Promise<string> {
  const res = await studio.fetch('/v1/images/generations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'image-model-2', prompt, size: '1024x1024', quality: 'low', n }),
  });
  await res.arrayBuffer();
  return res.headers.get('x-request-id')!;
}

const patch = (id: string, body: Record<string, unknown>) =>
  studio.json<ImageResponse>(`/api/admin/images/${id}`, { method: 'PATCH', body });

describe('keepers that survive (issue 22, defect 10)', () => {
  let requestId: string;
  let ids: string[];

  it('a star is a gallery favourite and a reject hides the image, both stored in the database', async () => {
    requestId = await studioGenerate('Two keepers of a windmill', 2);
    ids = await keptImages(t, requestId, 2);
    const starred = await patch(ids[0]!, { favourite: true });
    expect(starred.image).toMatchObject({ favourite: true, rejected: false });
    const rejected = await patch(ids[1]!, { rejected: true });
    expect(rejected.image).toMatchObject({ favourite: false, rejected: true });

    const listed = await studio.json<ImagesPage>('/api/admin/images?q=windmill');
    expect(listed.images.map((i) => i.id)).toEqual([ids[0]]);
    const hidden = await studio.json<ImagesPage>('/api/admin/images?q=windmill&rejected=1');
    expect(hidden.images.map((i) => i.id)).toEqual([ids[1]]);
    const favourites = await studio.json<ImagesPage>('/api/admin/images?favourite=1');
    expect(favourites.images.map((i) => i.id)).toEqual([ids[0]]);
    // In the SQLite file, read through another connection: a restart reads the same.
    const rows = t.db
      .prepare(
        'SELECT id, favourite, rejected FROM images WHERE request_id = ? ORDER BY image_index',
      )
      .all(requestId);
    expect(rows).toEqual([
      { id: ids[0], favourite: 1, rejected: 0 },
      { id: ids[1], favourite: 0, rejected: 1 },
    ]);

    // A reject taken back shows the image again.
    await patch(ids[1]!, { rejected: false });
    const back = await studio.json<ImagesPage>('/api/admin/images?q=windmill');
    expect(back.images.map((i) => i.id).sort()).toEqual([...ids].sort());
    await patch(ids[1]!, { rejected: true });
  });

  it('refuses a mark that is not a boolean, naming it', async () => {
    const res = await studio.fetch(`/api/admin/images/${ids[0]}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rejected: 'yes' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('rejected');
  });

  it('lists the studio’s runs grouped by request, with every image, its size, cost, date and marks', async () => {
    // Another app's request is not one of the studio's runs.
    await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'not a studio run', quality: 'low' }),
    }).then((r) => r.arrayBuffer());
    const { runs, total } = await studio.json<StudioRunsResponse>(
      '/api/admin/studio/runs?endpoint=generations',
    );
    expect(total).toBe(1);
    const [run] = runs;
    const usage = await usageRow(t, requestId);
    expect(run).toMatchObject({
      requestId,
      prompt: 'Two keepers of a windmill',
      phase: 'done',
      n: 2,
      size: '1024x1024',
      costMicros: usage.cost_micros,
    });
    expect(run!.images.map((i) => [i.id, i.favourite, i.rejected])).toEqual([
      [ids[0], true, false],
      [ids[1], false, true],
    ]);
    expect(run!.images.reduce((sum, i) => sum + i.costMicros, 0)).toBe(usage.cost_micros);
    expect(run!.images[0]).toMatchObject({ width: 1024, height: 1024 });

    const bad = await studio.fetch('/api/admin/studio/runs?limit=0');
    expect(bad.status).toBe(400);
    const unknown = await studio.fetch('/api/admin/studio/runs?colour=red');
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe('colour');
  });
});

describe('the person’s own cancels are not failures (issue 22, defect 15)', () => {
  it('a cancelled run reads cancelled in the runs view and is counted apart from the failures', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 60_000 }]);
    const runId = 'run-keepers-cancel-0001';
    const reply = studioGenerate('A run the person cancels', 1, { [STUDIO_RUN_HEADER]: runId });
    await expect
      .poll(
        async () =>
          (
            (await (
              await studio.fetch(`/api/admin/runs/${runId}/cancel`, { method: 'POST' })
            ).json()) as { cancelled: boolean }
          ).cancelled,
        { timeout: 10_000 },
      )
      .toBe(true);
    const cancelledId = await reply;
    await clearFaults(t.simUrl);
    await usageRow(t, cancelledId);

    const { runs } = await studio.json<StudioRunsResponse>('/api/admin/studio/runs');
    expect(runs[0]).toMatchObject({ requestId: cancelledId, phase: 'cancelled', images: [] });

    const totals = await studio.json<{ rows: UsageTotal[] }>('/api/admin/usage/totals');
    expect(totals.rows[0]).toMatchObject({ errors: 0, cancelled: 1 });
    const failed = await studio.json<UsageListResponse>('/api/admin/usage?status=error');
    expect(failed.total).toBe(0);
    const cancelled = await studio.json<UsageListResponse>('/api/admin/usage?status=cancelled');
    expect(cancelled.records.map((r) => r.requestId)).toEqual([cancelledId]);
    const succeeded = await studio.json<UsageListResponse>('/api/admin/usage?status=success');
    expect(succeeded.records.map((r) => r.requestId)).not.toContain(cancelledId);
  });
});
