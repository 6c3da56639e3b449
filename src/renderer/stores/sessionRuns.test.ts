import { describe, expect, it } from 'vitest';
import type { ImageSlot, RunState } from './run';
import { createSessionRunsStore, MAX_SESSION_RUNS } from './sessionRuns';

function fakeUrls() {
  let n = 0;
  const live = new Set<string>();
  return {
    live,
    deps: {
      createUrl: () => {
        const url = `blob:${++n}`;
        live.add(url);
        return url;
      },
      revokeUrl: (url: string) => live.delete(url),
    },
  };
}

const slot = (index: number, state: ImageSlot['state'], blob: Blob | null): ImageSlot => ({
  index,
  state,
  partials: state === 'partial' ? 1 : 0,
  url: blob ? `run:${index}` : null,
  blob,
  size: null,
  outputFormat: null,
  usage: null,
});

const run = (phase: RunState['phase'], slots: ImageSlot[], prompt = 'a kite'): RunState =>
  ({
    phase,
    slots,
    startedAt: 1000,
    finishedAt: 2000,
    usage: null,
    requestId: 'req_1',
    error: null,
    request: {
      call: { endpoint: 'generations', body: {} },
      n: slots.length,
      model: 'image-model-2',
      prompt,
      requestedSize: '1024x1024',
    },
    runId: 'r',
    upstreamStopped: null,
  }) as unknown as RunState;

describe('session runs', () => {
  it('keeps every finished run newest first, with its own copies of the image URLs', () => {
    const { deps, live } = fakeUrls();
    const store = createSessionRunsStore(deps);
    const blob = new Blob(['x']);
    store.getState().archive(run('done', [slot(0, 'done', blob), slot(1, 'done', blob)], 'one'));
    store
      .getState()
      .archive(run('cancelled', [slot(0, 'partial', blob), slot(1, 'waiting', null)], 'two'));
    const { runs } = store.getState();
    expect(runs.map((r) => [r.prompt, r.phase])).toEqual([
      ['two', 'cancelled'],
      ['one', 'done'],
    ]);
    // A cancelled run keeps its preview, marked as not final.
    expect(runs[0]!.images).toMatchObject([{ index: 0, final: false }]);
    expect(runs[1]!.images.every((i) => i.final && live.has(i.url))).toBe(true);
  });

  it('stars and rejects one variant without touching the others', () => {
    const store = createSessionRunsStore(fakeUrls().deps);
    const blob = new Blob(['x']);
    store.getState().archive(run('done', [slot(0, 'done', blob), slot(1, 'done', blob)]));
    const id = store.getState().runs[0]!.id;
    store.getState().mark(id, 1, 'star');
    store.getState().mark(id, 0, 'reject');
    expect(store.getState().runs[0]!.images.map((i) => i.mark)).toEqual(['reject', 'star']);
  });

  it('ignores a run still going, and frees the images of runs past the limit', () => {
    const { deps, live } = fakeUrls();
    const store = createSessionRunsStore(deps);
    const blob = new Blob(['x']);
    store.getState().archive(run('running', [slot(0, 'done', blob)]));
    expect(store.getState().runs).toEqual([]);
    for (let i = 0; i < MAX_SESSION_RUNS + 5; i++)
      store.getState().archive(run('done', [slot(0, 'done', blob)]));
    expect(store.getState().runs).toHaveLength(MAX_SESSION_RUNS);
    expect(live.size).toBe(MAX_SESSION_RUNS);
  });
});
