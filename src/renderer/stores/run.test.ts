import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { GatewayError } from '../lib/api/errors';
import type { LiveRun } from '../../shared/admin';
import type { ImageCall, ImageCallHandlers } from '../lib/api/imageCall';
import { createRunStore, resumeLiveRuns, type RunDeps, type RunRequest } from './run';

const REQUEST: RunRequest = {
  call: { endpoint: 'generations', body: { prompt: 'p', n: 2 } },
  n: 2,
  model: 'image-model-2',
  prompt: 'p',
  requestedSize: '1024x1024',
};

/** A controllable stand-in for the gateway call, plus URL bookkeeping to check revocation. */
function harness() {
  let clock = 1000;
  const live = new Set<string>();
  let urls = 0;
  let handlers: ImageCallHandlers | null = null;
  let call: ImageCall | null = null;
  let settle: { resolve: (v: unknown) => void; reject: (e: unknown) => void } | null = null;
  const cancelled: string[] = [];
  const follows: Array<{ runId: string; after: number; requestId: string | null }> = [];
  let runs = 0;
  /** Every call (the request or a follow) waits here until the test settles it. */
  const pending = (signal: AbortSignal | undefined) =>
    new Promise((resolve, reject) => {
      settle = { resolve: resolve as (v: unknown) => void, reject };
      signal?.addEventListener('abort', () =>
        reject(new DOMException('The operation was aborted.', 'AbortError')),
      );
    });
  const deps: RunDeps = {
    newRunId: () => `run-${++runs}`,
    cancelUpstream: (runId) => {
      cancelled.push(runId);
      return Promise.resolve(true);
    },
    now: () => clock,
    createUrl: () => {
      const url = `blob:${++urls}`;
      live.add(url);
      return url;
    },
    revokeUrl: (url) => live.delete(url),
    run: (c, h) => {
      call = c;
      handlers = h;
      return pending(c.signal) as ReturnType<RunDeps['run']>;
    },
    follow: (runId, after, requestId, h, signal) => {
      follows.push({ runId, after, requestId });
      handlers = h;
      return pending(signal) as ReturnType<RunDeps['follow']>;
    },
  };
  return {
    store: createRunStore(deps),
    live,
    cancelled,
    follows,
    tick: (ms: number) => (clock += ms),
    handlers: () => handlers!,
    call: () => call!,
    settle: () => settle!,
  };
}

const blob = (text: string) => new Blob([text], { type: 'image/png' });

describe('run store', () => {
  it('shows each slot’s latest partial, then its final image, and the usage', async () => {
    const h = harness();
    const done = h.store.getState().start(REQUEST);
    expect(h.store.getState()).toMatchObject({ phase: 'running', startedAt: 1000 });
    expect(h.store.getState().slots.map((s) => s.state)).toEqual(['waiting', 'waiting']);

    h.handlers().onPartial?.({ imageIndex: 1, partialIndex: 0, blob: blob('p0') });
    h.handlers().onPartial?.({ imageIndex: 1, partialIndex: 1, blob: blob('p1') });
    let slot = h.store.getState().slots[1]!;
    expect(slot).toMatchObject({ state: 'partial', partials: 2, url: 'blob:2' });
    expect(h.live.has('blob:1')).toBe(false); // the replaced partial was revoked

    const usage = emptyUsage();
    for (const imageIndex of [0, 1]) {
      h.handlers().onImage({
        imageIndex,
        blob: blob(`final${imageIndex}`),
        size: '1024x1024',
        quality: 'medium',
        background: 'opaque',
        outputFormat: 'png',
        usage,
        revisedPrompt: null,
      });
    }
    h.tick(2500);
    h.settle().resolve({ requestId: 'req_1', usage, images: 2 });
    await done;
    const state = h.store.getState();
    expect(state).toMatchObject({
      phase: 'done',
      finishedAt: 3500,
      requestId: 'req_1',
      error: null,
    });
    slot = state.slots[1]!;
    expect(slot).toMatchObject({ state: 'done', size: '1024x1024', partials: 2 });
    expect(h.live.size).toBe(2);
  });

  it('cancels through the abort signal and keeps what already arrived', async () => {
    const h = harness();
    const done = h.store.getState().start(REQUEST);
    h.handlers().onPartial?.({ imageIndex: 0, partialIndex: 0, blob: blob('p') });
    h.store.getState().cancel();
    await done;
    expect(h.call().signal?.aborted).toBe(true);
    expect(h.store.getState().phase).toBe('cancelled');
    expect(h.store.getState().slots[0]?.state).toBe('partial');
  });

  it('tells the gateway to stop the upstream work of the run it cancels, by its run id', async () => {
    const h = harness();
    const done = h.store.getState().start(REQUEST);
    expect(h.call().runId).toBe('run-1');
    expect(h.store.getState()).toMatchObject({ runId: 'run-1', upstreamStopped: null });
    h.store.getState().cancel();
    await done;
    expect(h.cancelled).toEqual(['run-1']);
    await expect.poll(() => h.store.getState().upstreamStopped).toBe(true);
    // A second cancel (or Escape pressed twice) asks nothing more.
    h.store.getState().cancel();
    expect(h.cancelled).toEqual(['run-1']);
    // A run that ended by itself is never cancelled upstream.
    const next = h.store.getState().start(REQUEST);
    h.settle().resolve({ requestId: 'r', usage: null, images: 0 });
    await next;
    h.store.getState().cancel();
    expect(h.cancelled).toEqual(['run-1']);
  });

  it('keeps the gateway error with its param, and retries the same request', async () => {
    const h = harness();
    const done = h.store.getState().start(REQUEST);
    h.settle().reject(
      new GatewayError('bad size', 400, 'size', 'invalid_size', 'invalid_request_error', 'req_2'),
    );
    await done;
    expect(h.store.getState()).toMatchObject({
      phase: 'error',
      error: { status: 400, param: 'size', code: 'invalid_size', message: 'bad size' },
      requestId: 'req_2',
    });
    const again = h.store.getState().retry();
    expect(h.store.getState().phase).toBe('running');
    expect(h.call().body).toBe(REQUEST.call.body);
    h.settle().resolve({ requestId: null, usage: null, images: 0 });
    await again;
    // The reply ended without the two images: an error, never a silent success.
    expect(h.store.getState().error?.message).toContain('2 of 2 images missing');
  });

  it('ignores the callbacks of a request replaced by a newer one', async () => {
    const h = harness();
    const first = h.store.getState().start(REQUEST);
    const oldHandlers = h.handlers();
    const second = h.store.getState().start({ ...REQUEST, n: 1 });
    oldHandlers.onPartial?.({ imageIndex: 0, partialIndex: 0, blob: blob('old') });
    expect(h.store.getState().slots[0]?.state).toBe('waiting');
    await first;
    expect(h.store.getState().phase).toBe('running');
    h.store.getState().clear();
    await second;
    expect(h.store.getState().phase).toBe('idle');
  });

  it('takes a dropped stream up again after its last event, without sending the run again', async () => {
    const h = harness();
    const done = h.store.getState().start({ ...REQUEST, n: 1 });
    h.handlers().onPartial?.({ imageIndex: 0, partialIndex: 0, blob: blob('p0') });
    h.handlers().onSequence?.(0);
    h.handlers().onSequence?.(1);
    // The connection drops mid-way (a fetch body that breaks off rejects with a TypeError).
    h.settle().reject(new TypeError('network error'));
    await expect.poll(() => h.follows.length).toBe(1);
    expect(h.follows).toEqual([{ runId: 'run-1', after: 1, requestId: null }]);
    expect(h.store.getState().phase).toBe('running');
    h.handlers().onImage({
      imageIndex: 0,
      blob: blob('final'),
      size: '1024x1024',
      quality: 'high',
      background: 'opaque',
      outputFormat: 'png',
      usage: emptyUsage(),
      revisedPrompt: null,
    });
    // The resumed part's own total would count only what came after the drop.
    h.settle().resolve({ requestId: 'req_7', usage: null, images: 1 });
    await done;
    expect(h.store.getState()).toMatchObject({ phase: 'done', requestId: 'req_7' });
    expect(h.store.getState().usage).toEqual(emptyUsage());
    // Sent once: the second part was a follow of the same run.
    expect(h.call().runId).toBe('run-1');
  });

  it('gives up on a stream that keeps dropping, and never resumes after a gateway answer', async () => {
    const h = harness();
    const done = h.store.getState().start(REQUEST);
    for (let i = 0; i < 4; i += 1) {
      await expect.poll(() => h.follows.length).toBe(i);
      h.settle().reject(new TypeError('network error'));
    }
    await done;
    expect(h.follows).toHaveLength(3);
    expect(h.store.getState()).toMatchObject({
      phase: 'error',
      error: { message: 'network error' },
    });
    const again = h.store.getState().start(REQUEST);
    h.settle().reject(new GatewayError('over budget', 429, null, 'budget_exceeded'));
    await again;
    expect(h.follows).toHaveLength(3);
    expect(h.store.getState().error?.status).toBe(429);
  });

  it('takes up a run the gateway is still making: from its first event, cancellable by its id', async () => {
    const h = harness();
    const live: LiveRun = {
      runId: 'run-fromlastpage',
      requestId: 'req_live',
      endpoint: 'generations',
      model: 'image-model-2',
      prompt: 'a harbour',
      size: '1536x1024',
      quality: 'high',
      n: 1,
      parentImageId: null,
      createdAt: 400,
      status: 'in_progress',
    };
    const attached = h.store.getState().attach(live);
    expect(h.follows).toEqual([{ runId: 'run-fromlastpage', after: -1, requestId: 'req_live' }]);
    expect(h.store.getState()).toMatchObject({
      phase: 'running',
      runId: 'run-fromlastpage',
      startedAt: 400,
      request: { prompt: 'a harbour', requestedSize: '1536x1024', n: 1 },
    });
    // A second attach (the session checked again) leaves the run as it is.
    await h.store.getState().attach({ ...live, runId: 'run-another-one' });
    expect(h.follows).toHaveLength(1);
    h.store.getState().cancel();
    await attached;
    expect(h.cancelled).toEqual(['run-fromlastpage']);
    expect(h.store.getState().phase).toBe('cancelled');
  });

  it("takes up each page's newest live run when the studio opens", async () => {
    const generate = harness();
    const edit = harness();
    const live = (runId: string, endpoint: LiveRun['endpoint'], createdAt: number): LiveRun => ({
      runId,
      requestId: `req_${runId}`,
      endpoint,
      model: 'image-model-2',
      prompt: 'p',
      size: '1024x1024',
      quality: 'low',
      n: 1,
      parentImageId: null,
      createdAt,
      status: 'in_progress',
    });
    await resumeLiveRuns(
      () =>
        Promise.resolve([
          live('run-generate-old', 'generations', 1),
          live('run-edit-only-one', 'edits', 2),
          live('run-generate-new', 'generations', 3),
        ]),
      { generations: generate.store, edits: edit.store },
    );
    expect(generate.follows.map((f) => f.runId)).toEqual(['run-generate-new']);
    expect(edit.follows.map((f) => f.runId)).toEqual(['run-edit-only-one']);
    // An edit's images are not kept with the run: it cannot be sent again as it was.
    expect(edit.store.getState().request).toBeNull();
    // A gateway that does not answer leaves the pages idle.
    const idle = harness();
    await resumeLiveRuns(() => Promise.reject(new Error('down')), {
      generations: idle.store,
      edits: idle.store,
    });
    expect(idle.store.getState().phase).toBe('idle');
  });

  it('reads a run cancelled from another page as cancelled, not as a failure', async () => {
    const h = harness();
    const done = h.store.getState().start(REQUEST);
    h.settle().reject(
      new GatewayError('The run was cancelled from the studio.', 0, null, 'client_cancelled'),
    );
    await done;
    expect(h.store.getState()).toMatchObject({
      phase: 'cancelled',
      upstreamStopped: true,
      error: null,
    });
    // This page did not ask for it.
    expect(h.cancelled).toEqual([]);
  });
});
