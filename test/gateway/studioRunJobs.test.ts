import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveRunsResponseSchema, STUDIO_RUN_HEADER } from '../../src/shared/admin';
import { INTERRUPTED } from '../../src/shared/usageRecord';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { startServe, type ServeProcess } from '../support/cli';
import {
  clearFaults,
  keptImages,
  scriptFaults,
  startTestGateway,
  studioLogin,
  tempDir,
  usageRow,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

/*
 * The studio's runs as jobs (issue 25): a run outlives its page. The page's own connection, a
 * page that comes back (GET /api/admin/runs/live, then the run's events from where it was), a
 * Cancel from another page, and a gateway that stops mid-run.
 */

interface StreamEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

/** The events of an event-stream response, as they arrive; leaving the loop closes it. */
async function* eventsOf(res: Response): AsyncGenerator<StreamEvent> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data) yield JSON.parse(data) as StreamEvent;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const runBody = (prompt: string) =>
  JSON.stringify({
    model: 'image-model-2',
    prompt,
    size: '1024x1024',
    quality: 'high',
    stream: true,
    partial_images: 2,
  });

function startRun(studio: StudioClient, runId: string, prompt: string, signal?: AbortSignal) {
  return studio.fetch('/v1/images/generations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', [STUDIO_RUN_HEADER]: runId },
    body: runBody(prompt),
    signal,
  });
}

const liveRuns = async (studio: StudioClient) =>
  liveRunsResponseSchema.parse(await studio.json('/api/admin/runs/live')).runs;

describe('a studio run as a job', () => {
  let t: TestGateway;
  let studio: StudioClient;
  beforeAll(async () => {
    // A realistic simulator: a high 1024x1024 image with two partials takes about 1.7 s.
    t = await startTestGateway({ simulatorSpeed: 1 });
    studio = await studioLogin(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('goes on when its page leaves; the page that comes back hears every later event once', async () => {
    const runId = 'run-lighthouse-0001';
    const res = await startRun(studio, runId, 'a lighthouse, reloaded mid-run');
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const requestId = res.headers.get('x-request-id')!;
    let last = -1;
    const seen: number[] = [];
    for await (const event of eventsOf(res)) {
      seen.push(event.sequence_number);
      last = event.sequence_number;
      // The page reloads after the first partial image: its connection closes here.
      if (event.type === 'image_generation.partial_image') break;
    }
    expect(seen).toEqual(seen.map((_, i) => i));

    const resumed = await studio.fetch(`/api/admin/runs/${runId}/events?starting_after=${last}`);
    expect(resumed.status).toBe(200);
    const later: StreamEvent[] = [];
    for await (const event of eventsOf(resumed)) later.push(event);
    expect(later.map((e) => e.sequence_number)).toEqual(later.map((_, i) => last + 1 + i));
    expect(later.map((e) => e.type)).toEqual([
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    const image = Buffer.from(String(later.at(-1)!.b64_json), 'base64');
    expect(image.subarray(1, 4).toString()).toBe('PNG');

    // One usage row, delivered (the page's leaving is not "client closed"), its image kept.
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({
      status: 200,
      images: 1,
      stream: 1,
      api_key_id: expect.any(String),
    });
    expect(row.cost_micros).toBeGreaterThan(0);
    expect(
      t.db
        .prepare('SELECT COUNT(*) FROM usage_records WHERE request_id = ?')
        .pluck()
        .get(requestId),
    ).toBe(1);
    expect(await keptImages(t, requestId)).toHaveLength(1);
    expect(await liveRuns(studio)).toEqual([]);
    const { runs } = await studio.json<{ runs: Array<{ requestId: string; phase: string }> }>(
      '/api/admin/studio/runs',
    );
    expect(runs.find((run) => run.requestId === requestId)?.phase).toBe('done');
    // Its events stay readable from the start for a page that comes back later.
    const replay = await studio.fetch(`/api/admin/runs/${runId}/events`);
    const all: StreamEvent[] = [];
    for await (const event of eventsOf(replay)) all.push(event);
    expect(all.map((e) => e.sequence_number)).toEqual([0, 1, 2]);
  });

  it('is listed while it runs, and a Cancel from another page stops its upstream call', async () => {
    // The upstream would take a minute to answer: the run is in flight until it is cancelled.
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 60_000 }]);
    const calls = t.gateway.simulator!.calls;
    const before = calls.length;
    const runId = 'run-slowcastle-0002';
    const page = new AbortController();
    const res = await startRun(studio, runId, 'a slow castle', page.signal);
    const requestId = res.headers.get('x-request-id')!;
    await expect.poll(() => calls.length).toBeGreaterThan(before);
    // The page closes.
    page.abort();

    // Another page opens: it finds the run, follows it, and cancels it.
    const [live] = await liveRuns(studio);
    expect(live).toMatchObject({
      runId,
      requestId,
      endpoint: 'generations',
      prompt: 'a slow castle',
      size: '1024x1024',
      quality: 'high',
      n: 1,
      status: 'in_progress',
    });
    const follow = await studio.fetch(`/api/admin/runs/${runId}/events`);
    const followed = (async () => {
      const heard: StreamEvent[] = [];
      for await (const event of eventsOf(follow)) heard.push(event);
      return heard;
    })();
    const cancel = await studio.json(`/api/admin/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel).toEqual({ cancelled: true });
    // The follower's stream ends with why: nothing was made.
    expect(await followed).toEqual([
      {
        type: 'error',
        sequence_number: 0,
        error: {
          type: 'error',
          code: 'client_cancelled',
          message: 'The run was cancelled from the studio.',
        },
      },
    ]);
    await expect.poll(() => calls[before]!.aborted).toBe(true);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({
      status: 499,
      error_code: 'client_cancelled',
      images: 0,
      cost_micros: 0,
    });
    expect(await liveRuns(studio)).toEqual([]);
    expect(await studio.json(`/api/admin/runs/${runId}/cancel`, { method: 'POST' })).toEqual({
      cancelled: false,
    });
    await clearFaults(t.simUrl);
  });

  it('runs a key’s request with a run id on its connection, as before; its run is not listed', async () => {
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        [STUDIO_RUN_HEADER]: 'run-anotherapp-0003',
      },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'a key’s own', quality: 'low' }),
    });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
    const events = await studio.fetch('/api/admin/runs/run-anotherapp-0003/events');
    expect(events.status).toBe(404);
    expect(await events.json()).toMatchObject({ error: { param: 'runId' } });
  });

  it('names a bad starting_after', async () => {
    const res = await studio.fetch('/api/admin/runs/run-lighthouse-0001/events?starting_after=x');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'starting_after' } });
  });
});

describe('a gateway restart mid-run', () => {
  const dataDir = tempDir('atelier-studio-run-');
  const servers: ServeProcess[] = [];
  afterAll(() => {
    for (const s of servers) s.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The studio session of a served gateway, from the login link it printed. */
  async function studioOf(server: ServeProcess) {
    const link = /studio login: (\S+)/.exec(server.output())![1]!;
    const login = await fetch(link, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    return (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('cookie', cookie);
      headers.set('x-atelier-studio', '1');
      return fetch(`${server.url}${path}`, { ...init, headers });
    };
  }

  it('fails the run with a reason; its request has one usage row, and no run is left listed', async () => {
    const server = await startServe([
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--simulator-speed',
      '20',
    ]);
    servers.push(server);
    const studio = await studioOf(server);
    const runId = 'run-harbour-restart1';
    const page = new AbortController();
    const res = await studio('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', [STUDIO_RUN_HEADER]: runId },
      body: runBody('a very slow harbour'),
      signal: page.signal,
    });
    const requestId = res.headers.get('x-request-id')!;
    const db = openDatabase(databasePath(dataDir));
    try {
      const pending = () =>
        db.prepare('SELECT COUNT(*) FROM usage_pending').pluck().get() as number;
      await expect.poll(pending, { timeout: 20_000 }).toBe(1);
      page.abort();
      server.child.kill('SIGKILL');
      await server.exited;

      const restarted = await startServe(['--port', '0', '--data-dir', dataDir]);
      servers.push(restarted);
      expect(restarted.output()).toContain(
        '1 studio run(s) left unfinished by the last run: failed',
      );
      const again = await studioOf(restarted);
      expect(
        liveRunsResponseSchema.parse(await (await again('/api/admin/runs/live')).json()).runs,
      ).toEqual([]);
      const job = db
        .prepare('SELECT status, response FROM response_jobs WHERE id = ?')
        .get(`run_${runId}`) as { status: string; response: string };
      expect(job.status).toBe('failed');
      expect(JSON.parse(job.response)).toMatchObject({
        requestId,
        error: { message: expect.stringMatching(/gateway stopped before this run finished/) },
      });
      const rows = db
        .prepare('SELECT error_code FROM usage_records WHERE request_id = ?')
        .all(requestId);
      expect(rows).toEqual([{ error_code: INTERRUPTED }]);
      const { runs } = (await (await again('/api/admin/studio/runs')).json()) as {
        runs: Array<{ requestId: string; phase: string }>;
      };
      expect(runs.find((run) => run.requestId === requestId)?.phase).toBe('error');
    } finally {
      db.close();
    }
  });
});
