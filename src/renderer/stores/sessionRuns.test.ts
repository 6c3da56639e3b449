import { describe, expect, it } from 'vitest';
import type { ImageRecord, StudioRun } from '../../shared/admin';
import { createSessionRunsStore, markOf, RUNS_PAGE } from './sessionRuns';

const image = (id: string, extra: Partial<ImageRecord> = {}): ImageRecord => ({
  id,
  requestId: `req_${id}`,
  index: 0,
  createdAt: 1,
  source: 'studio',
  endpoint: '/images/generations',
  prompt: 'p',
  revisedPrompt: null,
  model: 'image-model-2',
  requestedSize: '1024x1024',
  deliveredSize: '1024x1024',
  quality: 'low',
  outputFormat: 'png',
  outputCompression: null,
  background: null,
  moderation: null,
  width: 1024,
  height: 1024,
  bytes: 10,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  costMicros: 5,
  favourite: false,
  rejected: false,
  parentId: null,
  hasMask: false,
  apiKeyId: null,
  fallbackStep: null,
  ...extra,
});

const run = (requestId: string, images: ImageRecord[]): StudioRun => ({
  requestId,
  createdAt: 1,
  endpoint: '/images/generations',
  prompt: 'p',
  model: 'image-model-2',
  size: '1024x1024',
  quality: 'low',
  n: images.length,
  phase: 'done',
  status: 200,
  errorMessage: null,
  costMicros: 5,
  images,
});

describe('the runs store (read from the gateway)', () => {
  it('loads, pages, and marks an image as the gateway answers', async () => {
    const all = Array.from({ length: RUNS_PAGE + 3 }, (_, i) => run(`r${i}`, [image(`i${i}`)]));
    const asked: Array<{ limit: number; offset: number }> = [];
    const store = createSessionRunsStore({
      fetchRuns: async (q) => {
        asked.push(q);
        return { runs: all.slice(q.offset, q.offset + q.limit), total: all.length };
      },
      markImage: async (id, marks) => image(id, marks),
    });
    await store.getState().load();
    expect(store.getState()).toMatchObject({ loaded: true, total: RUNS_PAGE + 3 });
    expect(store.getState().runs).toHaveLength(RUNS_PAGE);
    await store.getState().more();
    expect(store.getState().runs).toHaveLength(RUNS_PAGE + 3);
    // A reload keeps as many runs in view as were shown.
    await store.getState().load();
    expect(asked.at(-1)).toEqual({ limit: RUNS_PAGE + 3, offset: 0 });

    await store.getState().mark('i1', 'star');
    expect(markOf(store.getState().runs[1]!.images[0]!)).toBe('star');
    await store.getState().mark('i1', 'reject');
    expect(store.getState().runs[1]!.images[0]).toMatchObject({ favourite: false, rejected: true });
    await store.getState().mark('i1', null);
    expect(markOf(store.getState().runs[1]!.images[0]!)).toBeNull();
    store.getState().replaceImage('i1', null);
    expect(store.getState().runs[1]!.images).toEqual([]);
  });

  it('never runs two loads at once, and one asked for meanwhile is made after', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const store = createSessionRunsStore({
      fetchRuns: async () => {
        calls += 1;
        if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
        return { runs: [run(`r${calls}`, [])], total: 1 };
      },
      markImage: async (id) => image(id),
    });
    const first = store.getState().load();
    const second = store.getState().load();
    release();
    await Promise.all([first, second]);
    expect(calls).toBe(2);
    expect(store.getState().runs[0]!.requestId).toBe('r2');
  });
});
