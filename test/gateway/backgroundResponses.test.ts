import fs from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../src/shared/usageRecord';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { runCli, startServe, type ServeProcess } from '../support/cli';
import {
  clearFaults,
  scriptFaults,
  startTestGateway,
  tempDir,
  usageRow,
  type TestGateway,
} from '../support/gateway';

// A realistic simulator (speed 1): a high 1024x1024 image takes about 1.7 s, so a stream can be
// left mid-way and a job cancelled while it runs.
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ simulatorSpeed: 1 });
});
afterAll(async () => {
  await t.close();
});

const tool = {
  type: 'image_generation' as const,
  quality: 'high' as const,
  size: '1024x1024' as const,
  partial_images: 2,
};
const jobRequest = (id: string) =>
  t.db.prepare('SELECT request_id FROM response_jobs WHERE id = ?').pluck().get(id) as string;

describe('background responses with the official openai client', () => {
  it('answers at once, goes on without the caller, and is polled to completion', async () => {
    const created = await t.client.responses.create({
      model: 'agent-model-1',
      input: 'Draw a paper crane.',
      tools: [{ ...tool, partial_images: 0, quality: 'low' }],
      background: true,
    });
    expect(created.status).toBe('queued');
    expect(created.background).toBe(true);
    expect(created.id).toMatch(/^resp_/);
    // The caller has gone: nothing holds a connection to the job. Poll, as the docs say, waking
    // on each request the gateway settles (listening before each look, so none is missed).
    let polled;
    for (;;) {
      const settled = new Promise<void>((resolve) =>
        t.gateway.events.once('settled', () => resolve()),
      );
      polled = await t.client.responses.retrieve(created.id);
      if (polled.status !== 'queued' && polled.status !== 'in_progress') break;
      await settled;
    }
    expect(polled.status).toBe('completed');
    expect(polled.id).toBe(created.id);
    const call = polled.output.find((item) => item.type === 'image_generation_call');
    if (call?.type !== 'image_generation_call') throw new Error('no image call');
    expect(Buffer.from(call.result!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const row = await usageRow(t, jobRequest(created.id));
    expect(row).toMatchObject({ endpoint: '/responses', status: 200, images: 1 });
    expect(row.cost_micros).toBeGreaterThan(0);
  });

  it('streams with sequence numbers; a dropped stream resumes with starting_after, each later event once', async () => {
    const stream = await t.client.responses.create({
      model: 'agent-model-1',
      input: 'Draw a lighthouse.',
      tools: [tool],
      background: true,
      stream: true,
    });
    let id = '';
    let last = -1;
    const seen: number[] = [];
    for await (const event of stream) {
      seen.push(event.sequence_number);
      last = event.sequence_number;
      if (event.type === 'response.created') id = event.response.id;
      // Leave after the first partial image: the connection closes here.
      if (event.type === 'response.image_generation_call.partial_image') break;
    }
    expect(id).toMatch(/^resp_/);
    expect(seen).toEqual(seen.map((_, i) => i));
    // Usually still running here; on a busy machine it may have finished: both resume the same.
    expect(['in_progress', 'completed']).toContain((await t.client.responses.retrieve(id)).status);

    const resumed = await t.client.responses.retrieve(id, { stream: true, starting_after: last });
    const later: Array<{ n: number; type: string }> = [];
    for await (const event of resumed) later.push({ n: event.sequence_number, type: event.type });
    expect(later.map((e) => e.n)).toEqual(later.map((_, i) => last + 1 + i));
    expect(later.at(-1)!.type).toBe('response.completed');
    expect(
      later.filter((e) => e.type === 'response.image_generation_call.partial_image'),
    ).toHaveLength(1);
    expect((await t.client.responses.retrieve(id)).status).toBe('completed');
    // The dropped stream is not "client closed": the job delivered.
    const row = await usageRow(t, jobRequest(id));
    expect(row).toMatchObject({ status: 200, images: 1, stream: 1 });
  });

  it('cancels: the upstream call stops, the response says cancelled, and the row says so', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 60_000 }]);
    const calls = t.gateway.simulator!.calls;
    const before = calls.length;
    const created = await t.client.responses.create({
      model: 'agent-model-1',
      input: 'Draw a slow castle.',
      tools: [tool],
      background: true,
    });
    await expect.poll(() => calls.length).toBeGreaterThan(before);
    const cancelled = await t.client.responses.cancel(created.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await t.client.responses.retrieve(created.id)).status).toBe('cancelled');
    const row = await usageRow(t, jobRequest(created.id));
    expect(row).toMatchObject({
      status: 499,
      error_code: 'client_cancelled',
      images: 0,
      cost_micros: 0,
    });
    await expect.poll(() => calls[before]!.aborted).toBe(true);
    // Cancelling what is over is an error naming the response.
    await expect(t.client.responses.cancel(created.id)).rejects.toMatchObject({ status: 400 });
    await clearFaults(t.simUrl);
  });

  it('is refused as any request when a key limit says no, and leaves no job running', async () => {
    const { key, id } = await t.newKey('background-budget', {
      budgetMicros: 1,
      budgetPeriod: 'total',
    });
    const poor = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 });
    await expect(
      poor.responses.create({
        model: 'agent-model-1',
        input: 'Draw an expensive harbour.',
        tools: [tool],
        background: true,
      }),
    ).rejects.toMatchObject({ status: 429, code: 'budget_exceeded' });
    // Its job's end is written just after the answer.
    const jobsOf = () =>
      t.db.prepare('SELECT status FROM response_jobs WHERE api_key_id = ?').pluck().all(id);
    await expect.poll(jobsOf).toEqual(['failed']);
  });

  it('belongs to the key that made it: another key gets 404', async () => {
    const created = await t.client.responses.create({
      model: 'agent-model-1-mini',
      input: 'Say hello.',
      background: true,
    });
    const other = new OpenAI({
      apiKey: (await t.newKey('background-other')).key,
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    });
    await expect(other.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.cancel(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(t.client.responses.retrieve('resp_nope')).rejects.toMatchObject({ status: 404 });
  });
});

describe('a gateway restart mid-job', () => {
  const dataDir = tempDir('atelier-background-');
  const servers: ServeProcess[] = [];
  afterAll(() => {
    for (const s of servers) s.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails the unfinished job with a reason, and its request has one usage row', async () => {
    const created = runCli(['keys', 'create', '--name', 'bg', '--data-dir', dataDir]);
    const key = created.stdout.trimEnd().split('\n').pop()!;
    const server = await startServe([
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--simulator-speed',
      '20',
    ]);
    servers.push(server);
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const job = await client.responses.create({
      model: 'agent-model-1',
      input: 'Draw a very slow harbour.',
      tools: [tool],
      background: true,
    });
    const db = openDatabase(databasePath(dataDir));
    try {
      const pending = () =>
        db.prepare('SELECT COUNT(*) FROM usage_pending').pluck().get() as number;
      await expect.poll(pending, { timeout: 20_000 }).toBe(1);
      server.child.kill('SIGKILL');
      await server.exited;

      const restarted = await startServe(['--port', '0', '--data-dir', dataDir]);
      servers.push(restarted);
      expect(restarted.output()).toContain(
        '1 background response(s) left unfinished by the last run: failed',
      );
      const again = new OpenAI({ apiKey: key, baseURL: `${restarted.url}/v1`, maxRetries: 0 });
      const failed = await again.responses.retrieve(job.id);
      expect(failed.status).toBe('failed');
      expect(failed.error?.message).toMatch(/gateway stopped before this response finished/);
      const requestId = db
        .prepare('SELECT request_id FROM response_jobs WHERE id = ?')
        .pluck()
        .get(job.id);
      const rows = db
        .prepare('SELECT error_code FROM usage_records WHERE request_id = ?')
        .all(requestId);
      expect(rows).toEqual([{ error_code: INTERRUPTED }]);
    } finally {
      db.close();
    }
  });
});
